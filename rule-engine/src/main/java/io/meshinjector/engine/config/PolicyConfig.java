package io.meshinjector.engine.config;

import io.meshinjector.engine.decision.PathOption;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * How the engine chooses among redirect paths.
 *
 * @param preference most preferred first; {@code init/plain} only if an operator lists it
 * @param publishLabels whether node capability labels are published; {@link #constrain()} says what
 *     that means for a constraint
 * @param runToCompletion what to do with a pod that runs to completion when no node it may run on
 *     runs native sidecars
 */
public record PolicyConfig(
    List<PathOption> preference,
    MixedNodes mixedNodes,
    NoViablePath noViablePath,
    PinCni pinCni,
    boolean publishLabels,
    RunToCompletion runToCompletion) {

  public PolicyConfig {
    if (preference == null || preference.isEmpty()) {
      throw new IllegalArgumentException("policy.preference must list at least one path");
    }
    if (new LinkedHashSet<>(preference).size() != preference.size()) {
      throw new IllegalArgumentException("policy.preference lists a path twice: " + preference);
    }
    preference = List.copyOf(preference);
    Objects.requireNonNull(runToCompletion, "runToCompletion");
  }

  /** Whether the engine may constrain a pod to some of its candidate nodes, and if not why. */
  public ConstrainPolicy constrain() {
    return new ConstrainPolicy(mixedNodes, publishLabels);
  }
}
