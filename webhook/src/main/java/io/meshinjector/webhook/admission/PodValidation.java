package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.webhook.settings.PodLimits;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a pod tree must hold before it is bound to the model and walked by the engine.
 *
 * <ul>
 *   <li>The limits of {@code webhook.podLimits}, counted on the tree first, so that an oversized
 *       pod costs one pass over three lists.
 *   <li>The shapes a Pod can deserialise into but the engine and the templates cannot take: null
 *       list items, containers without a name, null values in the string maps they read. The API
 *       server never sends these (Go cannot decode them into a Pod), so only a broken or hostile
 *       client does, and it should learn what is wrong rather than get a 500 from deep inside the
 *       engine.
 * </ul>
 */
public final class PodValidation {
  /** String maps the engine reads by value. */
  private static final List<List<String>> STRING_MAPS =
      List.of(
          List.of("metadata", "labels"),
          List.of("metadata", "annotations"),
          List.of("spec", "nodeSelector"));

  private static final List<String> NAMED_CONTAINERS = List.of("containers", "initContainers");

  private final PodLimits limits;

  public PodValidation(PodLimits limits) {
    this.limits = Objects.requireNonNull(limits, "limits");
  }

  /**
   * @throws InvalidPod naming the first limit {@code pod} is past, or else the first shape the
   *     engine cannot take
   */
  public void check(JsonNode pod) {
    Optional<String> over = overLimit(pod);
    if (over.isPresent()) {
      throw new InvalidPod(InvalidPod.Kind.OVER_A_LIMIT, over.get());
    }
    Optional<String> shape = shapeProblem(pod);
    if (shape.isPresent()) {
      throw new InvalidPod(InvalidPod.Kind.NOT_A_POD, shape.get());
    }
  }

  /**
   * The first limit {@code pod} is past, as the caller should read it: the JSON path, the count
   * found there, the limit's key and value; empty when the pod is within every limit.
   */
  Optional<String> overLimit(JsonNode pod) {
    JsonNode spec = pod.path("spec");
    int containers = size(spec.path("containers")) + size(spec.path("initContainers"));
    if (containers > limits.maxContainers()) {
      return Optional.of(
          Problems.overPodLimit(
              "spec.containers + spec.initContainers",
              containers,
              "containers",
              "maxContainers",
              limits.maxContainers()));
    }
    int volumes = size(spec.path("volumes"));
    if (volumes > limits.maxVolumes()) {
      return Optional.of(
          Problems.overPodLimit(
              "spec.volumes", volumes, "volumes", "maxVolumes", limits.maxVolumes()));
    }
    int env = 0;
    for (String list : NAMED_CONTAINERS) {
      for (JsonNode container : spec.path(list)) {
        env += size(container.path("env"));
      }
    }
    if (env > limits.maxEnvEntries()) {
      return Optional.of(
          Problems.overPodLimit(
              "spec.containers[*].env + spec.initContainers[*].env",
              env,
              "env entries",
              "maxEnvEntries",
              limits.maxEnvEntries()));
    }
    return Optional.empty();
  }

  private static int size(JsonNode list) {
    return list.isArray() ? list.size() : 0;
  }

  /**
   * The first problem found, as a JSON path and what is wrong there (for example {@code
   * spec.containers[0] is null}); empty when the engine can take the pod.
   *
   * @param pod the pod as received
   */
  public static Optional<String> shapeProblem(JsonNode pod) {
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
