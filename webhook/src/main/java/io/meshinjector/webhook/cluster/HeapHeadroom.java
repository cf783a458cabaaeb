package io.meshinjector.webhook.cluster;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Optional;

/**
 * Whether the heap has room for the cluster the view found. Read once, when the view first syncs: a
 * heap that the cluster view and the server already fill ends in an OutOfMemoryError on the first
 * burst of admissions, and is better named at start, with the fix.
 */
final class HeapHeadroom {
  /** Past this share of the maximum heap, still in use after a collection, the start warns. */
  static final double FULL = 0.75;

  private HeapHeadroom() {}

  /** The warning, if the heap in use after the last collections is past {@link #FULL}. */
  static Optional<String> warning(int nodes) {
    long used = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage afterGc = pool.getCollectionUsage();
      if (pool.getType() == MemoryType.HEAP && afterGc != null) {
        used += afterGc.getUsed();
      }
    }
    long max = Runtime.getRuntime().maxMemory();
    if (max <= 0 || used < FULL * max) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            "the heap is nearly full with the cluster view of %d nodes: %d of %d MiB in use after"
                + " the last collection; give it more (the chart's resources.limits.memory, of"
                + " which the heap is all but 304 MiB, or MESH_INJECTOR_MAX_HEAP outside a"
                + " container;"
                + " docs/operations.md has a sizing table)",
            nodes, used >> 20, max >> 20));
  }
}
