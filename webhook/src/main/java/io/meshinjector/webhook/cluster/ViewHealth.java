package io.meshinjector.webhook.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Whether the cluster view can be decided from, and how far behind the cluster it may be. */
public interface ViewHealth {

  /** True once every source has delivered its first full state; never false again after. */
  boolean synced();

  /**
   * How long the view has not been known to be in sync with the API server: zero while every
   * informer is watching, growing while one is cut off; empty before the first sync.
   */
  Optional<Duration> age();

  /**
   * The sources the view is fed from, by name, whether each has delivered its state yet; empty for
   * a view from files.
   */
  default List<String> sourceNames() {
    return List.of();
  }

  /** Whether the named source has delivered its state (an optional one may never have). */
  default boolean sourceSynced(String name) {
    return synced();
  }

  /**
   * Whether the view fits the heap it was given: false once the heap in use after a collection is
   * past {@link HeapHeadroom#FULL} of it (true again once it has stayed at or below that for {@link
   * HeapHeadroom#RECOVER}), and for good once the view had to leave nodes out to stay alive. Not
   * Ready meanwhile.
   */
  default boolean fits() {
    return true;
  }

  /** The share of the heap in use after the last collection; NaN when unknown. */
  default double heapUsedShare() {
    return Double.NaN;
  }

  /**
   * How many node shapes (labels with the node's name taken out, taints, unschedulable, OS image,
   * kubelet) the view holds for its nodes to share, counting until the next pruning those no node
   * has any more; NaN when it does not share them (a view from files). Near the node count, the
   * nodes do not share and each holds its own labels.
   */
  default double nodeShapes() {
    return Double.NaN;
  }

  /** A view from files: complete from the start and never behind. */
  static ViewHealth fixed() {
    return new ViewHealth() {
      @Override
      public boolean synced() {
        return true;
      }

      @Override
      public Optional<Duration> age() {
        return Optional.of(Duration.ZERO);
      }
    };
  }
}
