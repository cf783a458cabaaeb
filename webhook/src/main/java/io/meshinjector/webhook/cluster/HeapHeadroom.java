package io.meshinjector.webhook.cluster;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Whether the heap has room for the cluster the view holds. A heap that the view and the server
 * already fill ends in an OutOfMemoryError on the next burst of admissions, and the restart in the
 * same one: a replica that stays up, not Ready, and says which limit to set is the better failure.
 *
 * <p>Read from the heap in use after the last collection, the only figure that says what the
 * process holds (before one, the heap is always nearly full). Past {@link #FULL} of the maximum the
 * view does not fit; it fits again below {@link #ROOMY}, so that a replica near the edge does not
 * go in and out of readiness with each collection.
 */
public final class HeapHeadroom {
  /**
   * Past this share of the maximum heap, still in use after a collection, the view does not fit.
   */
  static final double FULL = 0.85;

  /**
   * Past this share a new node would run the process out of memory: the view leaves new nodes out,
   * and the replica stays not ready until it restarts. Well above {@link #FULL}: the first list is
   * a transient peak that may pass 85 % and still fit.
   */
  static final double EXHAUSTED = 0.95;

  /** Below this share it fits again. */
  static final double ROOMY = 0.70;

  /** Past this share at the first sync the start warns, though the view fits. */
  static final double WARN = 0.75;

  /** What the launcher leaves beside the heap in a container (bin/mesh-injector). */
  static final long NON_HEAP_MIB = Long.getLong("mesh-injector.non-heap-mib", 304);

  private final LongSupplier usedAfterGc;
  private final long max;
  private final Long memoryLimitMib;
  private volatile boolean fits = true;
  private volatile boolean full;

  HeapHeadroom(LongSupplier usedAfterGc, long max, Long memoryLimitMib) {
    this.usedAfterGc = usedAfterGc;
    this.max = max;
    this.memoryLimitMib = memoryLimitMib;
  }

  /** This JVM's heap, with the container limit the launcher read, if any. */
  static HeapHeadroom ofThisJvm() {
    return new HeapHeadroom(
        HeapHeadroom::heapUsedAfterGc,
        Runtime.getRuntime().maxMemory(),
        Long.getLong("mesh-injector.memory-limit-mib"));
  }

  /**
   * Samples the heap: empty while the view fits and on every call after the first that found it
   * does not; the one line to log when it stops fitting (or fits again).
   */
  Optional<String> sample(int nodes) {
    long used = usedAfterGc.getAsLong();
    if (max <= 0 || used < 0) {
      return Optional.empty();
    }
    full = used > EXHAUSTED * max;
    if (fits && used > FULL * max) {
      fits = false;
      return Optional.of(doesNotFit(nodes, used));
    }
    if (!fits && used < ROOMY * max) {
      fits = true;
      return Optional.of(
          String.format(
              "the cluster view of %d nodes fits the heap again: %d of %d MiB in use after the"
                  + " last collection",
              nodes, used >> 20, max >> 20));
    }
    return Optional.empty();
  }

  boolean fits() {
    return fits;
  }

  /**
   * Whether the heap in use after a collection was past {@link #EXHAUSTED} at the last sample: read
   * for every node listed, so it reads the field, not the memory pools.
   */
  boolean full() {
    return full;
  }

  /** The share of the heap in use after the last collection; NaN when unknown. */
  double usedShare() {
    long used = usedAfterGc.getAsLong();
    return max <= 0 || used < 0 ? Double.NaN : (double) used / max;
  }

  /**
   * The line that names the node count, the heap and the limit to set: a heap in which what is in
   * use now would take {@link #ROOMY}, less the JVM's share beside it, rounded up to 64 MiB.
   */
  String doesNotFit(int nodes, long used) {
    long heapMib = roundUp((long) Math.ceil(used / ROOMY) >> 20, 64);
    heapMib = Math.max(heapMib, roundUp((max >> 20) + 64, 64));
    String fix =
        memoryLimitMib != null
            ? String.format(
                "set the container's memory limit (the chart's resources.limits.memory) to at"
                    + " least %dMi (now %dMi; the heap is the limit less %d MiB)",
                heapMib + NON_HEAP_MIB, memoryLimitMib, NON_HEAP_MIB)
            : String.format(
                "give it a heap of at least %dm (MESH_INJECTOR_MAX_HEAP outside a container; in"
                    + " one, a memory limit of %dMi)",
                heapMib, heapMib + NON_HEAP_MIB);
    return String.format(
        "the cluster view of %d nodes does not fit the heap of %d MiB: %d MiB in use after the"
            + " last collection; not ready until it fits: %s (docs/operations.md, Sizing)",
        nodes, max >> 20, used >> 20, fix);
  }

  private static long roundUp(long mib, long step) {
    return (mib + step - 1) / step * step;
  }

  /** The warning at the first sync, if the heap in use after the last collection is past WARN. */
  Optional<String> warning(int nodes) {
    long used = usedAfterGc.getAsLong();
    if (max <= 0 || used < WARN * max || used > FULL * max) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            "the heap is nearly full with the cluster view of %d nodes: %d of %d MiB in use after"
                + " the last collection; give it more (the chart's resources.limits.memory, of"
                + " which the heap is all but %d MiB, or MESH_INJECTOR_MAX_HEAP outside a"
                + " container; docs/operations.md has a sizing table)",
            nodes, used >> 20, max >> 20, NON_HEAP_MIB));
  }

  /** The heap pools' usage after their last collection; -1 before any collection. */
  static long heapUsedAfterGc() {
    long used = 0;
    boolean any = false;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage afterGc = pool.getCollectionUsage();
      if (pool.getType() == MemoryType.HEAP && afterGc != null) {
        used += afterGc.getUsed();
        any = true;
      }
    }
    return any ? used : -1;
  }
}
