package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.Optional;

/** When a pod of the mesh CNI DaemonSet makes its node's {@code cni} verdict {@code ready}. */
public final class CniPodReadiness {
  private CniPodReadiness() {}

  /**
   * The node the pod makes CNI-ready: it is bound to a node, Running, its Ready condition is True,
   * and it is not being deleted (a terminating pod may still report Ready while the plugin is being
   * removed).
   */
  public static Optional<String> readyNode(Pod pod) {
    if (pod == null || pod.getSpec() == null || pod.getStatus() == null) {
      return Optional.empty();
    }
    String node = pod.getSpec().getNodeName();
    if (node == null || node.isEmpty()) {
      return Optional.empty();
    }
    if (pod.getMetadata() != null && pod.getMetadata().getDeletionTimestamp() != null) {
      return Optional.empty();
    }
    if (!"Running".equals(pod.getStatus().getPhase())) {
      return Optional.empty();
    }
    if (pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return "True".equals(c.getStatus()) ? Optional.of(node) : Optional.empty();
      }
    }
    return Optional.empty();
  }
}
