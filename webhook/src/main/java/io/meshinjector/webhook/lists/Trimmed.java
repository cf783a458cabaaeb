package io.meshinjector.webhook.lists;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.meshinjector.engine.capability.CapabilityKey;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of cluster objects that decisions and the label publisher read, and nothing else. A
 * real Node carries kilobytes of images, conditions, addresses and managedFields that change with
 * every heartbeat; keeping them for thousands of nodes would cost tens of megabytes for nothing.
 */
public final class Trimmed {
  private Trimmed() {}

  /**
   * What {@link NodeParts} keeps of a Node.
   *
   * <p>The labels are held compactly, in an immutable map whose values are shared between nodes:
   * most of a node's 20-odd labels (zone, instance type, node group, OS, architecture) repeat
   * across its pool, and decoding gives each node its own copy of each value. At 5,000 Nodes that
   * saves about a sixth of the process's live heap.
   */
  public static Node node(Node node) {
    NodeParts parts = NodeParts.of(node);
    parts.taints = taints(parts.taints);
    return parts.trimmed();
  }

  /** Each taint's four fields: a field the API does not define is no one's to read here. */
  private static List<Taint> taints(List<Taint> taints) {
    if (taints == null || taints.stream().allMatch(t -> t.getAdditionalProperties().isEmpty())) {
      return taints;
    }
    return taints.stream()
        .map(t -> new Taint(t.getEffect(), t.getKey(), t.getTimeAdded(), t.getValue()))
        .toList();
  }

  /** An immutable copy with shared strings; a null value (a YAML {@code key:}) becomes "". */
  public static Map<String, String> compact(Map<String, String> labels) {
    if (labels == null) {
      return null;
    }
    Map<String, String> out = new HashMap<>(labels.size() * 2);
    labels.forEach(
        (k, v) -> {
          if (k != null) {
            out.put(shared(k), v == null ? "" : shared(v));
          }
        });
    return Map.copyOf(out);
  }

  /** The JVM's string table: one instance per distinct value, collected when no longer used. */
  static String shared(String s) {
    return s == null ? null : s.intern();
  }

  /**
   * The node as the engine must see it: without the capability labels this webhook publishes. They
   * are its output; read back as input, a verdict would confirm itself through an operator's
   * override selector.
   */
  public static Node withoutPublishedLabels(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    if (labels == null || labels.keySet().stream().noneMatch(Trimmed::isPublished)) {
      return node;
    }
    Map<String, String> kept = new LinkedHashMap<>(labels);
    kept.keySet().removeIf(Trimmed::isPublished);
    return new NodeBuilder(node).editMetadata().withLabels(kept).endMetadata().build();
  }

  /** The capability labels the node carries now, as the publisher compares them. */
  public static Map<String, String> publishedLabels(Node node) {
    Map<String, String> out = new LinkedHashMap<>();
    Map<String, String> labels = node.getMetadata().getLabels();
    if (labels != null) {
      labels.forEach(
          (k, v) -> {
            if (isPublished(k)) {
              out.put(k, v);
            }
          });
    }
    return out;
  }

  static boolean isPublished(String labelKey) {
    return labelKey.startsWith(CapabilityKey.LABEL_PREFIX);
  }

  /** Name, labels and annotations: what the inject gate reads. */
  public static Namespace namespace(Namespace ns) {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(ns.getMetadata().getName())
        .withResourceVersion(ns.getMetadata().getResourceVersion())
        .withLabels(copy(ns.getMetadata().getLabels()))
        .withAnnotations(withoutLastApplied(ns.getMetadata().getAnnotations()))
        .endMetadata()
        .build();
  }

  /**
   * Node, phase, Ready condition and deletion mark: what {@link
   * io.meshinjector.webhook.cluster.CniPodReadiness} reads.
   */
  public static Pod cniPod(Pod pod) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(pod.getMetadata().getName())
            .withNamespace(pod.getMetadata().getNamespace())
            .withResourceVersion(pod.getMetadata().getResourceVersion())
            .withDeletionTimestamp(pod.getMetadata().getDeletionTimestamp())
            .endMetadata();
    if (pod.getSpec() != null) {
      b.withNewSpec().withNodeName(pod.getSpec().getNodeName()).endSpec();
    }
    if (pod.getStatus() != null) {
      List<PodCondition> ready =
          pod.getStatus().getConditions() == null
              ? List.of()
              : pod.getStatus().getConditions().stream()
                  .filter(c -> "Ready".equals(c.getType()))
                  .toList();
      b.withNewStatus().withPhase(pod.getStatus().getPhase()).withConditions(ready).endStatus();
    }
    return b.build();
  }

  private static Map<String, String> copy(Map<String, String> map) {
    return map == null ? null : new LinkedHashMap<>(map);
  }

  private static Map<String, String> withoutLastApplied(Map<String, String> annotations) {
    if (annotations == null) {
      return null;
    }
    Map<String, String> kept = new LinkedHashMap<>(annotations);
    kept.remove("kubectl.kubernetes.io/last-applied-configuration");
    return kept;
  }
}
