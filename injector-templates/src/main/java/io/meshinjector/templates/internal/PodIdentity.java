package io.meshinjector.templates.internal;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.Decision;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Who a pod is in the templates' terms: its namespace, its workload and its owner. */
public final class PodIdentity {
  private PodIdentity() {}

  /**
   * A workload by its lower-case kind and name; both empty when the pod has none.
   *
   * @param kind as Linkerd's {@code linkerd.io/proxy-<kind>} writes it
   */
  public record Workload(String kind, String name) {}

  /**
   * @param pod with metadata
   */
  public static String namespace(Pod pod, Decision decision) {
    String ns = pod.getMetadata().getNamespace();
    if (ns != null && !ns.isEmpty()) {
      return ns;
    }
    String w = decision.workload();
    int slash = w.indexOf('/');
    return slash > 0 ? w.substring(0, slash) : "";
  }

  /**
   * Linkerd's {@code linkerd.io/proxy-<kind>: <name>}: the workload that owns the template, or for
   * a pod its controller, seen through a Deployment's ReplicaSet.
   */
  public static Workload workload(Pod pod, Decision decision) {
    OwnerReference owner = null;
    for (OwnerReference ref : orEmpty(pod.getMetadata().getOwnerReferences())) {
      if (Boolean.TRUE.equals(ref.getController())) {
        owner = ref;
      }
    }
    // A created pod names its controller; the owner wins over the decision's workload id, which
    // for such a pod is the ReplicaSet rather than the Deployment Linkerd's tools look for.
    if (owner == null || owner.getKind() == null || owner.getName() == null) {
      String[] parts = decision.workload().split("/", 3);
      if (parts.length == 3 && !parts[1].equals("Pod") && !parts[2].isEmpty()) {
        return new Workload(parts[1].toLowerCase(Locale.ROOT), parts[2]);
      }
      return new Workload("", "");
    }
    Map<String, String> labels = pod.getMetadata().getLabels();
    String hash = labels == null ? null : labels.get("pod-template-hash");
    if (owner.getKind().equals("ReplicaSet")
        && hash != null
        && owner.getName().endsWith("-" + hash)) {
      return new Workload(
          "deployment", owner.getName().substring(0, owner.getName().length() - hash.length() - 1));
    }
    return new Workload(owner.getKind().toLowerCase(Locale.ROOT), owner.getName());
  }

  /**
   * The pod's owner for identity: its {@code workload}, or a bare pod itself (Istio's
   * ISTIO_META_WORKLOAD_NAME and ISTIO_META_OWNER).
   */
  public static Workload owner(Pod pod, Decision decision, Workload workload) {
    if (!workload.name().isEmpty()) {
      return workload;
    }
    String name = podName(pod, decision);
    return name.isEmpty() ? workload : new Workload("pod", name);
  }

  /** The API version of the workload {@link #workload} names, for owner URIs. */
  public static String workloadApiVersion(Pod pod, String kind) {
    return switch (kind) {
      case "deployment", "statefulset", "daemonset", "replicaset" -> "apps/v1";
      case "job", "cronjob" -> "batch/v1";
      case "replicationcontroller", "pod" -> "v1";
      case "" -> "";
      default -> {
        for (OwnerReference ref : orEmpty(pod.getMetadata().getOwnerReferences())) {
          if (Boolean.TRUE.equals(ref.getController()) && ref.getApiVersion() != null) {
            yield ref.getApiVersion();
          }
        }
        yield "";
      }
    };
  }

  /** Cut to a label value's 63 characters, ending in a letter or digit as a label value must. */
  public static String labelValue(String name) {
    String cut = name.substring(0, Math.min(63, name.length()));
    int end = cut.length();
    while (end > 0 && !Character.isLetterOrDigit(cut.charAt(end - 1))) {
      end--;
    }
    return cut.substring(0, end);
  }

  private static String podName(Pod pod, Decision decision) {
    String name = pod.getMetadata().getName();
    if (name != null && !name.isEmpty()) {
      return name;
    }
    String[] parts = decision.workload().split("/", 3);
    return parts.length == 3 && parts[1].equals("Pod") ? parts[2] : "";
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
