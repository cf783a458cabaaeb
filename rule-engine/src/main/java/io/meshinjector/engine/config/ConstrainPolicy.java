package io.meshinjector.engine.config;

import java.util.Optional;

/**
 * Whether the engine may constrain a pod to some of its candidate nodes, with a node-affinity term
 * on a published capability label. The one place that answers it: the choice of a path that works
 * on only some nodes, and a native sidecar that only some nodes run, both ask here.
 *
 * @param mixedNodes {@code constrain} allows a constraint, {@code reject} forbids it
 * @param publishLabels whether the capability labels a constraint would match are written; without
 *     them a constraint would match no node, so {@code constrain} acts as {@code reject}
 */
public record ConstrainPolicy(MixedNodes mixedNodes, boolean publishLabels) {
  /** What forbids a constraint. */
  public enum WhyNot {
    /** {@code policy.mixedNodes: reject}. */
    MIXED_NODES_REJECT,
    /** {@code policy.publishLabels: false}. */
    LABELS_NOT_PUBLISHED
  }

  /**
   * Empty when the engine may constrain the pod. {@code mixedNodes: reject} is named before
   * unpublished labels: it is the operator's choice, and publishing labels would not lift it.
   */
  public Optional<WhyNot> whyNot() {
    if (mixedNodes == MixedNodes.REJECT) {
      return Optional.of(WhyNot.MIXED_NODES_REJECT);
    }
    if (!publishLabels) {
      return Optional.of(WhyNot.LABELS_NOT_PUBLISHED);
    }
    return Optional.empty();
  }

  public boolean allowed() {
    return whyNot().isEmpty();
  }
}
