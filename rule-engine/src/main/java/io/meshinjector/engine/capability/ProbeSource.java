package io.meshinjector.engine.capability;

import java.util.Arrays;
import java.util.Optional;

/**
 * How the probe reached one of its verdicts, written under {@code status.sources} of a {@code
 * NodeCapability}: a verdict the node proved by running the mesh's own iptables weighs more, for a
 * reader, than one inferred from the files that describe the kernel.
 */
public enum ProbeSource {
  /** The probe ran the binaries in a throwaway network namespace (docs/node-probe.md). */
  ACTIVE("active"),
  /** The probe read the node's files: modules, CNI config, binaries. */
  FILES("files");

  private final String id;

  ProbeSource(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  public static Optional<ProbeSource> fromId(String id) {
    if (id == null) {
      return Optional.empty();
    }
    String wanted = id.trim();
    return Arrays.stream(values()).filter(s -> s.id.equals(wanted)).findFirst();
  }

  @Override
  public String toString() {
    return id;
  }
}
