package io.meshinjector.engine.config;

import io.meshinjector.engine.decision.IptablesMode;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The capability registry's settings.
 *
 * @param probeTtl a probe verdict older than this counts as unknown
 * @param plainBackend which backend {@code plain} (the image's default {@code iptables}) uses, so
 *     its viability can be judged
 */
public record CapabilitiesConfig(
    Duration probeTtl,
    List<CapabilityOverride> overrides,
    AssumeUnknown assumeUnknown,
    CniDaemonSet cniDaemonSet,
    IptablesMode plainBackend) {
  public CapabilitiesConfig {
    Objects.requireNonNull(probeTtl, "capabilities.probeTtl");
    if (probeTtl.isNegative() || probeTtl.isZero()) {
      throw new IllegalArgumentException("capabilities.probeTtl must be positive: " + probeTtl);
    }
    overrides = overrides == null ? List.of() : List.copyOf(overrides);
    Objects.requireNonNull(assumeUnknown, "capabilities.assumeUnknown");
    if (plainBackend == IptablesMode.PLAIN) {
      throw new IllegalArgumentException("capabilities.plainBackend must be nft or legacy");
    }
  }
}
