package io.meshinjector.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the shapes a Pod can deserialise into but the engine and the templates cannot take: null
 * list items, containers without a name, null values in the string maps they read. The API server
 * never sends these (Go cannot decode them into a Pod), so only a broken or hostile client does,
 * and it should learn what is wrong rather than get a 500 from deep inside the engine.
 */
public final class PodShape {
  /** String maps the engine reads by value. */
  private static final List<List<String>> STRING_MAPS =
      List.of(
          List.of("metadata", "labels"),
          List.of("metadata", "annotations"),
          List.of("spec", "nodeSelector"));

  private static final List<String> NAMED_CONTAINERS = List.of("containers", "initContainers");

  private PodShape() {}

  /**
   * The first problem found, as a JSON path and what is wrong there (for example {@code
   * spec.containers[0] is null}); empty when the engine can take the pod.
   *
   * @param pod the pod as received
   */
  public static Optional<String> problem(JsonNode pod) {
    // metadata and spec are all the engine and the templates read; status is the API server's
    for (String part : List.of("metadata", "spec")) {
      Optional<String> found = nullListItem(part, pod.path(part));
      if (found.isPresent()) {
        return found;
      }
    }
    for (String list : NAMED_CONTAINERS) {
      JsonNode containers = pod.path("spec").path(list);
      for (int i = 0; containers.isArray() && i < containers.size(); i++) {
        JsonNode name = containers.get(i).get("name");
        if (containers.get(i).isObject() && (name == null || name.isNull())) {
          return Optional.of("spec." + list + "[" + i + "].name is missing");
        }
      }
    }
    for (List<String> path : STRING_MAPS) {
      JsonNode map = pod.path(path.get(0)).path(path.get(1));
      if (!map.isObject()) {
        continue;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isNull()) {
          return Optional.of(String.join(".", path) + "[" + e.getKey() + "] is null");
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Walks the tree holding only the path's segments; the path is spelt out once a null is found,
   * since every admission walks every node of the pod and almost none has a null.
   */
  private static Optional<String> nullListItem(String root, JsonNode node) {
    Deque<Object> path = new ArrayDeque<>();
    return nullListItem(node, path)
        ? Optional.of(spell(root, path) + " is null")
        : Optional.empty();
  }

  private static boolean nullListItem(JsonNode node, Deque<Object> path) {
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        path.addLast(i);
        if (node.get(i).isNull() || nullListItem(node.get(i), path)) {
          return true;
        }
        path.removeLast();
      }
    } else if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        path.addLast(e.getKey());
        if (nullListItem(e.getValue(), path)) {
          return true;
        }
        path.removeLast();
      }
    }
    return false;
  }

  private static String spell(String root, Deque<Object> path) {
    StringBuilder b = new StringBuilder(root);
    for (Object segment : path) {
      if (segment instanceof Integer i) {
        b.append('[').append(i).append(']');
      } else {
        b.append('.').append(segment);
      }
    }
    return b.toString();
  }
}
