package io.meshinjector.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Structural mutations of a JSON (or YAML) document: a random node replaced by another type,
 * removed, duplicated, nested deeper or blown up, so the input stays well-formed and reaches the
 * code behind the parser.
 */
public final class JsonMutations implements Fuzz.Structural {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private final ObjectMapper in;
  private final ObjectMapper out;

  public JsonMutations(ObjectMapper in, ObjectMapper out) {
    this.in = in;
    this.out = out;
  }

  @Override
  public byte[] mutate(byte[] input, Random r) {
    JsonNode root;
    try {
      root = in.readTree(input);
    } catch (Exception e) {
      return null;
    }
    if (root == null || !root.isContainerNode()) {
      return null;
    }
    List<JsonNode> containers = new ArrayList<>();
    collect(root, containers);
    JsonNode parent = containers.get(r.nextInt(containers.size()));
    if (parent instanceof ObjectNode o && o.size() > 0) {
      List<String> names = new ArrayList<>();
      o.fieldNames().forEachRemaining(names::add);
      String name = names.get(r.nextInt(names.size()));
      switch (r.nextInt(4)) {
        case 0 -> o.remove(name);
        case 1 -> o.set(name, replacement(o.get(name), r));
        case 2 -> o.set(name + (r.nextBoolean() ? "" : "x"), o.get(name).deepCopy());
        default -> o.set(name, F.arrayNode().add(o.get(name).deepCopy()));
      }
    } else if (parent instanceof ArrayNode a && a.size() > 0) {
      int i = r.nextInt(a.size());
      switch (r.nextInt(3)) {
        case 0 -> a.remove(i);
        case 1 -> a.set(i, replacement(a.get(i), r));
        default -> {
          int copies = 1 + r.nextInt(r.nextInt(10) == 0 ? 500 : 3);
          for (int k = 0; k < copies; k++) {
            a.add(a.get(i).deepCopy());
          }
        }
      }
    } else {
      return null;
    }
    try {
      return out.writeValueAsBytes(root);
    } catch (Exception e) {
      return null;
    }
  }

  private static void collect(JsonNode n, List<JsonNode> into) {
    if (n.isContainerNode()) {
      into.add(n);
      n.forEach(c -> collect(c, into));
    }
  }

  private static JsonNode replacement(JsonNode old, Random r) {
    return switch (r.nextInt(9)) {
      case 0 -> F.nullNode();
      case 1 -> F.numberNode(r.nextBoolean() ? -1 : Long.MAX_VALUE);
      case 2 -> F.textNode("");
      case 3 -> F.textNode("x".repeat(1 + r.nextInt(r.nextInt(10) == 0 ? 100_000 : 64)));
      case 4 -> F.booleanNode(r.nextBoolean());
      case 5 -> F.objectNode();
      case 6 -> F.arrayNode();
      case 7 -> {
        JsonNode deep = old.deepCopy();
        for (int i = 0; i < 1 + r.nextInt(30); i++) {
          deep = r.nextBoolean() ? F.arrayNode().add(deep) : F.objectNode().set("a", deep);
        }
        yield deep;
      }
      default -> F.textNode(old.isTextual() ? old.asText() + "\u0000\ud800" : old.toString());
    };
  }
}
