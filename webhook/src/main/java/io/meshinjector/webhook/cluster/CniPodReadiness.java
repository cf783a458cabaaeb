package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.List;
import java.util.Optional;

/**
 * Whether a pod of the mesh CNI DaemonSet makes its node's {@code cni} verdict {@code ready}: it
 * must be bound to a node, running, Ready, and not on its way out. A pod being deleted is still
 * Ready until its containers stop, but the plugin it installed may already be gone.
 */
public final class CniPodReadiness {
  private CniPodReadiness() {}

  /** The node the pod makes {@code cni: ready}, or empty when it makes none. */
  public static Optional<String> readyNode(Pod pod) {
    if (pod == null || pod.getMetadata() == null || pod.getSpec() == null) {
      return Optional.empty();
    }
    String node = pod.getSpec().getNodeName();
    if (node == null || node.isEmpty()) {
      return Optional.empty();
    }
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      return Optional.empty();
    }
    if (pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())) {
      return Optional.empty();
    }
    List<PodCondition> conditions = pod.getStatus().getConditions();
    boolean ready =
        conditions != null
            && conditions.stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    return ready ? Optional.of(node) : Optional.empty();
  }
}
