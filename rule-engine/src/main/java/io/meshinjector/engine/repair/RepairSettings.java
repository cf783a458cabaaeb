package io.meshinjector.engine.repair;

import java.time.Duration;
import java.util.Objects;

/**
 * The repair's configuration, as the probe's options give it.
 *
 * @param mode off, report or repair
 * @param perNodePerMinute at most this many pods deleted on one node in any minute; the node's
 *     reboot race breaks every pod at once, and deleting them all at once would hand the scheduler
 *     and the webhook a burst for a node whose facts may still be wrong
 * @param backoff a pod of the same controller failing the same way on the same node within this
 *     long after a repair is reported, not replaced again: the node is the problem, and deleting
 *     again would loop
 */
public record RepairSettings(RepairMode mode, int perNodePerMinute, Duration backoff) {
  public static final int DEFAULT_PER_NODE_PER_MINUTE = 5;

  public RepairSettings {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(backoff, "backoff");
    if (perNodePerMinute < 1) {
      throw new IllegalArgumentException(
          "repair rate limit per node per minute must be at least 1, not " + perNodePerMinute);
    }
    if (backoff.isNegative()) {
      throw new IllegalArgumentException("repair backoff must not be negative, not " + backoff);
    }
  }
}
