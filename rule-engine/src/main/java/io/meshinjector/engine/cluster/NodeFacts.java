package io.meshinjector.engine.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Taint;
import io.meshinjector.engine.capability.NodeInference;
import io.meshinjector.engine.capability.PodCidrs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the engine reads of a Node. Heartbeats change a Node every few seconds without changing any
 * of this, so the view compares projections and rebuilds only on a real change.
 *
 * @param taints only the NoSchedule and NoExecute taints, which decide where a pod may land
 * @param operatingSystem {@code status.nodeInfo.operatingSystem}, else the kubelet's {@code
 *     kubernetes.io/os} label, or null
 * @param podCidrs whether {@code spec.podCIDRs} hold an IPv6 range
 */
public record NodeFacts(
    String name,
    Map<String, String> labels,
    List<TaintRule> taints,
    String osImage,
    String kubeletVersion,
    String operatingSystem,
    PodCidrs podCidrs) {

  /** A taint as the scheduler matches it. */
  public record TaintRule(String key, String value, String effect) {}

  static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";

  public NodeFacts {
    labels = labels == null ? Map.of() : Map.copyOf(withoutNulls(labels));
    taints = List.copyOf(taints);
    Objects.requireNonNull(podCidrs, "podCidrs");
  }

  /**
   * A label written {@code key:} in a YAML file has a null value; Kubernetes would store "" (found
   * by AdmissionFuzzTest over --cluster files).
   */
  private static Map<String, String> withoutNulls(Map<String, String> labels) {
    boolean clean = true;
    for (Map.Entry<String, String> e : labels.entrySet()) {
      clean &= e.getKey() != null && e.getValue() != null;
    }
    if (clean) {
      // Map.copyOf keeps an immutable map as it is: the view then shares the informer's copy
      return labels;
    }
    Map<String, String> out = new HashMap<>();
    labels.forEach(
        (k, v) -> {
          if (k != null) {
            out.put(k, v == null ? "" : v);
          }
        });
    return out;
  }

  public static NodeFacts of(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    NodeSpec spec = node.getSpec();
    List<TaintRule> taints = new ArrayList<>();
    if (spec != null && spec.getTaints() != null) {
      for (Taint t : spec.getTaints()) {
        if (t != null
            && ("NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))) {
          taints.add(new TaintRule(t.getKey(), t.getValue(), t.getEffect()));
        }
      }
    }
    // The node controller mirrors spec.unschedulable as a taint; a view fed from files may lack it.
    // Being NoSchedule, it keeps the scheduler away but not a pod that names the node.
    if (spec != null
        && Boolean.TRUE.equals(spec.getUnschedulable())
        && taints.stream().noneMatch(t -> UNSCHEDULABLE_TAINT.equals(t.key()))) {
      taints.add(new TaintRule(UNSCHEDULABLE_TAINT, null, "NoSchedule"));
    }
    NodeStatus status = node.getStatus();
    String osImage = null;
    String kubelet = null;
    String os = null;
    if (status != null && status.getNodeInfo() != null) {
      osImage = status.getNodeInfo().getOsImage();
      kubelet = status.getNodeInfo().getKubeletVersion();
      os = status.getNodeInfo().getOperatingSystem();
    }
    if ((os == null || os.isEmpty()) && labels != null) {
      // a Node written to a --cluster file by hand may carry only the kubelet's label
      os = labels.get(NodeInference.OS_LABEL);
    }
    PodCidrs cidrs =
        spec == null ? PodCidrs.UNSET : PodCidrs.of(spec.getPodCIDRs(), spec.getPodCIDR());
    return new NodeFacts(node.getMetadata().getName(), labels, taints, osImage, kubelet, os, cidrs);
  }
}
