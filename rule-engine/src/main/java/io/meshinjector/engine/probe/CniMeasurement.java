package io.meshinjector.engine.probe;

import java.util.List;

/** What the probe's edge found about the mesh CNI on a node, before any verdict. */
public sealed interface CniMeasurement {

  /** A runtime config exists but cannot be read or parsed, so the runtime's dirs are unknown. */
  record RuntimeUnreadable(String problem) implements CniMeasurement {}

  /**
   * The runtime's conf dir, or its active config file, cannot be read or parsed.
   *
   * @param missing the conf dir does not exist (as opposed to being unreadable or malformed)
   */
  record ConfUnreadable(RuntimeCni runtime, String problem, boolean missing)
      implements CniMeasurement {}

  /**
   * Everything the verdict needs.
   *
   * @param binary where the plugin's binary is; null when the plugin is not chained, since then the
   *     probe does not look
   */
  record Measured(RuntimeCni runtime, CniChain chain, BinaryLookup binary)
      implements CniMeasurement {}

  /** A fault in the probe itself while measuring. */
  record Failed(String problem) implements CniMeasurement {}

  /**
   * Where the plugin's binary is, as far as the probe can see.
   *
   * @param found the binary in one of the runtime's bin dirs, or null
   * @param notVisible the runtime's bin dirs that are not under the host root at all
   * @param misplaced the binary in a well-known dir the runtime does not read, or null
   * @param problem why the lookup itself failed (permission denied, a file for a dir), or null
   */
  record BinaryLookup(String found, List<String> notVisible, String misplaced, String problem) {
    public BinaryLookup {
      notVisible = List.copyOf(notVisible);
    }

    public static BinaryLookup at(String path) {
      return new BinaryLookup(path, List.of(), null, null);
    }

    public static BinaryLookup failed(String problem) {
      return new BinaryLookup(null, List.of(), null, problem);
    }
  }
}
