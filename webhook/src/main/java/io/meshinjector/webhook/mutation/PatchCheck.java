package io.meshinjector.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Whether a JSON Patch of {@code add}, {@code remove} and {@code replace} operations applies to a
 * tree, as RFC 6902 says: every parent exists, every removed or replaced member exists, every array
 * index is in range. Applied to a copy of only the objects and arrays an operation passes through,
 * so the check costs the patch's paths rather than a copy of the whole pod. Any other operation, or
 * a patch of the root, is not checked here and answers false.
 */
final class PatchCheck {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private PatchCheck() {}

  static boolean applies(ArrayNode patch, JsonNode target) {
    if (!target.isContainerNode()) {
      return false;
    }
    Set<JsonNode> copied = Collections.newSetFromMap(new IdentityHashMap<>());
    JsonNode root = copy(target, copied);
    for (JsonNode op : patch) {
      List<String> path = pointer(op.path("path"));
      if (path == null || path.isEmpty()) {
        return false;
      }
      JsonNode parent = root;
      for (int i = 0; i < path.size() - 1; i++) {
        JsonNode child = child(parent, path.get(i));
        if (child == null || !child.isContainerNode()) {
          return false;
        }
        if (!copied.contains(child)) {
          // written into below, and not the caller's to change
          child = copy(child, copied);
          put(parent, path.get(i), child);
        }
        parent = child;
      }
      String last = path.get(path.size() - 1);
      boolean done =
          switch (op.path("op").asText("")) {
            case "add" -> op.has("value") && add(parent, last, op.get("value"));
            case "remove" -> remove(parent, last);
            case "replace" -> op.has("value") && replace(parent, last, op.get("value"));
            default -> false;
          };
      if (!done) {
        return false;
      }
    }
    return true;
  }

  private static boolean add(JsonNode parent, String token, JsonNode value) {
    if (parent instanceof ObjectNode o) {
      o.set(token, value);
      return true;
    }
    ArrayNode a = (ArrayNode) parent;
    if (token.equals("-")) {
      a.add(value);
      return true;
    }
    int i = index(token);
    if (i < 0 || i > a.size()) {
      return false;
    }
    a.insert(i, value);
    return true;
  }

  private static boolean remove(JsonNode parent, String token) {
    if (parent instanceof ObjectNode o) {
      return o.remove(token) != null;
    }
    ArrayNode a = (ArrayNode) parent;
    int i = index(token);
    if (i < 0 || i >= a.size()) {
      return false;
    }
    a.remove(i);
    return true;
  }

  private static boolean replace(JsonNode parent, String token, JsonNode value) {
    if (child(parent, token) == null) {
      return false;
    }
    put(parent, token, value);
    return true;
  }

  /** The member or element {@code token} names; null where there is none. */
  private static JsonNode child(JsonNode parent, String token) {
    if (parent instanceof ObjectNode o) {
      return o.get(token);
    }
    int i = index(token);
    return i < 0 || i >= parent.size() ? null : parent.get(i);
  }

  private static void put(JsonNode parent, String token, JsonNode value) {
    if (parent instanceof ObjectNode o) {
      o.set(token, value);
    } else {
      ((ArrayNode) parent).set(index(token), value);
    }
  }

  /** An array index as RFC 6901 writes one (digits, no leading zero), else -1. */
  private static int index(String token) {
    int n = token.length();
    if (n == 0 || n > 9 || (n > 1 && token.charAt(0) == '0')) {
      return -1;
    }
    int i = 0;
    for (int k = 0; k < n; k++) {
      char c = token.charAt(k);
      if (c < '0' || c > '9') {
        return -1;
      }
      i = i * 10 + (c - '0');
    }
    return i;
  }

  /** The reference tokens of a JSON Pointer, unescaped; null when it is not one. */
  private static List<String> pointer(JsonNode path) {
    if (!path.isTextual()) {
      return null;
    }
    String p = path.textValue();
    if (p.isEmpty()) {
      return List.of();
    }
    if (p.charAt(0) != '/') {
      return null;
    }
    List<String> tokens = new ArrayList<>(6);
    int start = 1;
    while (true) {
      int slash = p.indexOf('/', start);
      String raw = slash < 0 ? p.substring(start) : p.substring(start, slash);
      String token = unescape(raw);
      if (token == null) {
        return null;
      }
      tokens.add(token);
      if (slash < 0) {
        return tokens;
      }
      start = slash + 1;
    }
  }

  private static String unescape(String raw) {
    if (raw.indexOf('~') < 0) {
      return raw;
    }
    StringBuilder b = new StringBuilder(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c != '~') {
        b.append(c);
      } else if (i + 1 < raw.length() && (raw.charAt(i + 1) == '0' || raw.charAt(i + 1) == '1')) {
        b.append(raw.charAt(++i) == '0' ? '~' : '/');
      } else {
        return null;
      }
    }
    return b.toString();
  }

  /** The same members or elements in a new object or array. */
  private static JsonNode copy(JsonNode node, Set<JsonNode> copied) {
    JsonNode copy;
    if (node instanceof ObjectNode o) {
      ObjectNode c = F.objectNode();
      c.setAll(o);
      copy = c;
    } else {
      ArrayNode c = F.arrayNode(node.size());
      c.addAll((ArrayNode) node);
      copy = c;
    }
    copied.add(copy);
    return copy;
  }
}
