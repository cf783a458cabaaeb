package io.meshinjector.engine.repair;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What the per-node repair does with a pod whose redirect step failed (docs/operations.md,
 * "Repair").
 */
public enum RepairMode {
  /** No watch, no Events, no metric: the probe does not read pods at all. */
  OFF,
  /** Events and the metric only; nothing is deleted. */
  REPORT,
  /** Deletes the pod (UID precondition) so its controller recreates it and it is admitted again. */
  REPAIR;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code off|report|repair}; anything else names the allowed values. */
  public static RepairMode parse(String value) {
    for (RepairMode m : values()) {
      if (m.id().equals(value == null ? null : value.strip().toLowerCase(Locale.ROOT))) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "repair mode '"
            + value
            + "' is not one of "
            + Arrays.stream(values()).map(RepairMode::id).collect(Collectors.joining(", ")));
  }
}
