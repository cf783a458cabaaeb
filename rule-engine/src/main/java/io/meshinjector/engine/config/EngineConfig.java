package io.meshinjector.engine.config;

import java.util.Objects;

/**
 * The rule engine's part of the configuration (the chart renders the whole file; the template
 * sections are read by injector-templates from the same tree).
 *
 * @param mesh whose proxy the pods get
 * @param maxCandidateNodes how many candidate node names a decision lists; the count is always
 *     given
 * @param pathNotes what a chosen redirect path means in the mesh's own terms, by path ({@code
 *     init/nft}...), added to the decision's trace for {@code explain}; empty for Linkerd
 */
public record EngineConfig(
    Mesh mesh,
    InjectionConfig injection,
    PolicyConfig policy,
    CapabilitiesConfig capabilities,
    int maxCandidateNodes,
    java.util.Map<String, String> pathNotes) {
  public EngineConfig {
    Objects.requireNonNull(mesh, "mesh");
    pathNotes = pathNotes == null ? java.util.Map.of() : java.util.Map.copyOf(pathNotes);
    Objects.requireNonNull(injection, "injection");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(capabilities, "capabilities");
    if (maxCandidateNodes < 1) {
      throw new IllegalArgumentException("explain.maxCandidateNodes must be at least 1");
    }
  }
}
