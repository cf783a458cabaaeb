package io.meshinjector.webhook.mutation;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Whether a JSON Patch of {@code add}, {@code remove} and {@code replace} operations applies to a
 * tree, as RFC 6902 says: every parent exists, every removed or replaced member exists, every array
 * index is in range. Applied to a copy of only the objects and arrays an operation passes through,
 * so the check costs the patch's paths rather than a copy of the whole pod. Any other operation, or
 * a patch of the root, is not checked here and answers false.
 */
final class PatchCheck {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final Pattern BAD_ESCAPE = Pattern.compile("~(?![01])");

  private PatchCheck() {}

  static boolean applies(ArrayNode patch, JsonNode target) {
    if (!target.isContainerNode()) {
      return false;
    }
    Set<JsonNode> copied = Collections.newSetFromMap(new IdentityHashMap<>());
    JsonNode root = copy(target, copied);
    for (JsonNode op : patch) {
      List<JsonPointer> path = segments(op.path("path"));
      if (path == null || path.isEmpty()) {
        return false;
      }
      JsonNode parent = root;
      for (JsonPointer segment : path.subList(0, path.size() - 1)) {
        JsonNode child = child(parent, segment);
        if (child == null || !child.isContainerNode()) {
          return false;
        }
        if (!copied.contains(child)) {
          // written into below, and not the caller's to change
          child = copy(child, copied);
          put(parent, segment, child);
        }
        parent = child;
      }
      JsonPointer last = path.get(path.size() - 1);
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

  private static boolean add(JsonNode parent, JsonPointer segment, JsonNode value) {
    if (parent instanceof ObjectNode o) {
      o.set(segment.getMatchingProperty(), value);
      return true;
    }
    ArrayNode a = (ArrayNode) parent;
    if (segment.getMatchingProperty().equals("-")) {
      a.add(value);
      return true;
    }
    int i = segment.getMatchingIndex();
    if (i < 0 || i > a.size()) {
      return false;
    }
    a.insert(i, value);
    return true;
  }

  private static boolean remove(JsonNode parent, JsonPointer segment) {
    if (parent instanceof ObjectNode o) {
      return o.remove(segment.getMatchingProperty()) != null;
    }
    int i = segment.getMatchingIndex();
    if (i < 0 || i >= parent.size()) {
      return false;
    }
    ((ArrayNode) parent).remove(i);
    return true;
  }

  private static boolean replace(JsonNode parent, JsonPointer segment, JsonNode value) {
    if (child(parent, segment) == null) {
      return false;
    }
    put(parent, segment, value);
    return true;
  }

  /** The member or element {@code segment} names; null where there is none. */
  private static JsonNode child(JsonNode parent, JsonPointer segment) {
    if (parent instanceof ObjectNode o) {
      return o.get(segment.getMatchingProperty());
    }
    int i = segment.getMatchingIndex();
    return i < 0 || i >= parent.size() ? null : parent.get(i);
  }

  private static void put(JsonNode parent, JsonPointer segment, JsonNode value) {
    if (parent instanceof ObjectNode o) {
      o.set(segment.getMatchingProperty(), value);
    } else {
      ((ArrayNode) parent).set(segment.getMatchingIndex(), value);
    }
  }

  /**
   * The pointer's segments, each a pointer whose first segment is the one (Jackson unescapes it,
   * and reads an array index as RFC 6901 writes one: digits, no leading zero); null when the path
   * is not a pointer. Jackson keeps a {@code ~} that is not {@code ~0} or {@code ~1}; RFC 6901 does
   * not allow one, so neither does this.
   */
  private static List<JsonPointer> segments(JsonNode path) {
    if (!path.isTextual() || BAD_ESCAPE.matcher(path.textValue()).find()) {
      return null;
    }
    JsonPointer pointer;
    try {
      pointer = JsonPointer.compile(path.textValue());
    } catch (IllegalArgumentException e) {
      return null;
    }
    List<JsonPointer> segments = new ArrayList<>(6);
    for (JsonPointer p = pointer; !p.matches(); p = p.tail()) {
      segments.add(p);
    }
    return segments;
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
