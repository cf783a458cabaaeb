package io.meshinjector.engine.config;

import java.util.Objects;

/**
 * The rule engine's part of the configuration (the chart renders the whole file; the template
 * sections are read by injector-templates from the same tree).
 *
 * @param maxCandidateNodes how many candidate node names a decision lists; the count is always
 *     given
 */
public record EngineConfig(
    InjectionConfig injection,
    PolicyConfig policy,
    CapabilitiesConfig capabilities,
    int maxCandidateNodes) {
  public EngineConfig {
    Objects.requireNonNull(injection, "injection");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(capabilities, "capabilities");
    if (maxCandidateNodes < 1) {
      throw new IllegalArgumentException("explain.maxCandidateNodes must be at least 1");
    }
  }

  /** The embedded defaults. */
  public static EngineConfig defaults() {
    return ConfigLoader.defaults().engine();
  }
}
