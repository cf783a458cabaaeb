package io.meshinjector.webhook.cluster;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Whether the heap has room for the cluster the view holds. A heap that the view and the server
 * already fill ends in an OutOfMemoryError on the next burst of admissions, and the restart in the
 * same one: a replica that stays up, not Ready, and says which limit to set is the better failure.
 *
 * <p>Read from the heap in use after the last collection, the only figure that says what the
 * process holds (before one, the heap is always nearly full). That figure still counts what a young
 * collection left in the old generation (the first list's pages, a burst's requests), so a figure
 * past {@link #FULL} is only believed after a full collection asked for here (at most once per
 * {@link #CONFIRM_EVERY}): a replica that fits is never judged on a transient. While the first list
 * is read the replica is not Ready anyway; a list that does not fit is named then (it may never
 * end), and the first sample once the list is in ({@code settled}) judges again at once, after a
 * full collection, what stays of it. Once it does not fit, it fits again when the confirmed figure
 * has stayed at or below {@link #FULL} for {@link #RECOVER}: a delay, not a lower mark, so that a
 * replica that fits at rest cannot be stranded not Ready between two marks (with {@code
 * failurePolicy: Fail} that refuses pods), and readiness still changes at most once per {@link
 * #RECOVER}.
 */
public final class HeapHeadroom {
  /**
   * Past this share of the maximum heap, still in use after a full collection, the view does not
   * fit.
   */
  static final double FULL = 0.85;

  /**
   * Past this share a new node would run the process out of memory: the view leaves new nodes out,
   * and the replica stays not ready until it restarts. Well above {@link #FULL}: the first list is
   * a transient peak that may pass 85 % and still fit.
   */
  static final double EXHAUSTED = 0.95;

  /** The share of a heap sized for the view that it should take: the limit the line names. */
  static final double SIZED = 0.70;

  /** Past this share at the first sync the start warns, though the view fits. */
  static final double WARN = 0.75;

  /** At most one full collection asked for in this time: each stops admissions for a moment. */
  static final Duration CONFIRM_EVERY = Duration.ofSeconds(10);

  /** How long the heap must stay at or below {@link #FULL} before the view fits again. */
  static final Duration RECOVER = Duration.ofSeconds(30);

  /** What the launcher leaves beside the heap in a container (bin/mesh-injector). */
  static final long NON_HEAP_MIB = Long.getLong("mesh-injector.non-heap-mib", 304);

  private static final long NEVER = Long.MIN_VALUE;

  private final LongSupplier usedAfterGc;
  private final long max;
  private final Long memoryLimitMib;
  private final Runnable collect;
  private final LongSupplier nanos;
  private volatile boolean fits = true;
  private volatile boolean full;
  private long lastCollect = NEVER;
  private long fitsSince = NEVER;
  private boolean settledSeen;

  HeapHeadroom(
      LongSupplier usedAfterGc,
      long max,
      Long memoryLimitMib,
      Runnable collect,
      LongSupplier nanos) {
    this.usedAfterGc = usedAfterGc;
    this.max = max;
    this.memoryLimitMib = memoryLimitMib;
    this.collect = collect;
    this.nanos = nanos;
  }

  /** This JVM's heap, with the container limit the launcher read, if any. */
  static HeapHeadroom ofThisJvm() {
    return new HeapHeadroom(
        HeapHeadroom::heapUsedAfterGc,
        Runtime.getRuntime().maxMemory(),
        Long.getLong("mesh-injector.memory-limit-mib"),
        System::gc,
        System::nanoTime);
  }

  /**
   * Samples the heap ({@code settled}: the first list is in): empty while the view fits and on
   * every call after the first that found it does not; the one line to log when it stops fitting
   * (or fits again). Called from one thread at a time (the view's ticker).
   */
  synchronized Optional<String> sample(int nodes, boolean settled) {
    long used = usedAfterGc.getAsLong();
    if (max <= 0 || used < 0) {
      return Optional.empty();
    }
    long now = nanos.getAsLong();
    // the first sample once the list is in judges what stays of it, whatever the list's peak said
    boolean firstSettled = settled && !settledSeen;
    settledSeen |= settled;
    boolean confirmed = false;
    if ((used > FULL * max || (firstSettled && !fits))
        && (firstSettled || lastCollect == NEVER || now - lastCollect >= CONFIRM_EVERY.toNanos())) {
      collect.run();
      lastCollect = now;
      confirmed = true;
      used = usedAfterGc.getAsLong();
    }
    full = used > EXHAUSTED * max;
    boolean over = used > FULL * max;
    if (fits) {
      if (over && confirmed) {
        fits = false;
        fitsSince = NEVER;
        return Optional.of(doesNotFit(nodes, used));
      }
      return Optional.empty();
    }
    if (over) {
      // an unconfirmed figure may be a young collection's: only a full one puts the clock back
      if (confirmed) {
        fitsSince = NEVER;
      }
      return Optional.empty();
    }
    if (fitsSince == NEVER) {
      fitsSince = now;
    }
    if (!firstSettled && now - fitsSince < RECOVER.toNanos()) {
      return Optional.empty();
    }
    fits = true;
    fitsSince = NEVER;
    return Optional.of(
        String.format(
            "the cluster view of %d nodes fits the heap again: %d of %d MiB in use after the"
                + " last collection",
            nodes, used >> 20, max >> 20));
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
   * use now would take {@link #SIZED}, less the JVM's share beside it, rounded up to 64 MiB.
   */
  String doesNotFit(int nodes, long used) {
    long heapMib = roundUp((long) Math.ceil(used / SIZED) >> 20, 64);
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
