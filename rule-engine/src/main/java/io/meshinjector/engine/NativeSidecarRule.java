package io.meshinjector.engine;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.config.ConstrainPolicy;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.config.NoViablePath;
import io.meshinjector.engine.config.RunToCompletion;
import io.meshinjector.engine.decision.CompletionRule;
import io.meshinjector.engine.decision.NodeRequirement;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.RefusalReason;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.rules.PodAnnotations;
import io.meshinjector.engine.rules.Viability;
import java.util.List;
import java.util.Optional;

/**
 * Where the proxy goes, a regular container or a native sidecar, on the nodes a path left; and what
 * becomes of a pod that runs to completion where it cannot have a native sidecar.
 */
final class NativeSidecarRule {
  /** What the rule concluded. */
  sealed interface Placement {
    /** The proxy goes here. */
    record Placed(ProxyPlacement proxy) implements Placement {}

    /** The decision ends without this placement. */
    record Ended(Outcome outcome) implements Placement {}

    /** Choose the path again among these candidates only, the ones that run native sidecars. */
    record ChooseAgain(List<Candidate> among) implements Placement {}
  }

  private final EngineConfig config;
  private final Viability viability;
  private final Shortfalls shortfalls;
  private final DecisionLog log;
  private final String workload;

  /** Never or OnFailure when the pod runs to completion, else null. */
  private final String restartPolicy;

  NativeSidecarRule(
      EngineConfig config,
      Viability viability,
      Shortfalls shortfalls,
      DecisionLog log,
      String workload,
      String restartPolicy) {
    this.config = config;
    this.viability = viability;
    this.shortfalls = shortfalls;
    this.log = log;
    this.workload = workload;
    this.restartPolicy = restartPolicy;
  }

  /**
   * @param remaining the candidates on which {@code path} works
   * @param allCandidates every candidate of the pod, before any path narrowed them
   * @param narrowed the candidates are only those that run native sidecars: a run-to-completion
   *     pod's second choice
   * @param requirements takes the native-sidecar node requirement where the pod gets one
   */
  Placement place(
      PathOption path,
      List<PathOption> options,
      List<Candidate> remaining,
      List<Candidate> allCandidates,
      PodAnnotations asked,
      boolean narrowed,
      List<NodeRequirement> requirements) {
    List<Candidate> lackingNative =
        remaining.stream().filter(c -> !viability.nativeSidecar(c.caps())).toList();
    if (restartPolicy != null && !narrowed) {
      log.add(
          new TraceStep(
              "completion",
              "restartPolicy "
                  + restartPolicy
                  + ": the pod runs to completion, so its proxy must end when the app ends, as a"
                  + " native sidecar"));
    }
    if (Boolean.FALSE.equals(asked.nativeSidecar())) {
      log.add(new TraceStep("proxy", asked.nativeSidecarBy() + ": regular container"));
      if (restartPolicy != null) {
        // the pod opts out of native sidecars, so it counts as running on no node that has them
        Optional<Outcome> end =
            noNativeSidecar(
                DecisionTexts.optedOut(asked.nativeSidecarBy()),
                DecisionTexts.fixOptOut(asked.nativeSidecarBy()));
        if (end.isPresent()) {
          return new Placement.Ended(end.get());
        }
      }
      return new Placement.Placed(ProxyPlacement.CONTAINER);
    }
    if (lackingNative.isEmpty()) {
      log.add(new TraceStep("proxy", "every remaining candidate runs native sidecars"));
      shortfalls.unknownAssumed(CapabilityKey.NATIVE_SIDECAR, remaining).ifPresent(log::warn);
      if (narrowed) {
        constrainForCompletion(requirements, allCandidates);
      } else if (restartPolicy != null) {
        log.completed(
            CompletionRule.NATIVE_SIDECAR,
            "every remaining candidate runs native sidecars: the proxy ends when the app ends");
      }
      return new Placement.Placed(ProxyPlacement.NATIVE_SIDECAR);
    }
    if (asked.nativeSidecar() == null && restartPolicy == null) {
      log.add(
          new TraceStep(
              "proxy",
              "not every remaining candidate runs native sidecars (kubelet < 1.29 or unknown):"
                  + " regular container"));
      return new Placement.Placed(ProxyPlacement.CONTAINER);
    }
    boolean noneNative = lackingNative.size() == remaining.size();
    boolean canConstrain = config.policy().constrain().allowed();
    if (noneNative && asked.nativeSidecar() == null) {
      // a run-to-completion pod whose path's nodes all lack native sidecars: the nodes of
      // another path may have them, so choose again among all the candidates that do. All of
      // them, not only those with a working path: the native-sidecar label admits them all, so
      // the path must be constrained unless it works on each of them
      List<Candidate> withNativeAnywhere =
          allCandidates.stream().filter(c -> viability.nativeSidecar(c.caps())).toList();
      boolean pathOnSome =
          withNativeAnywhere.stream()
              .anyMatch(c -> options.stream().anyMatch(o -> viability.viable(o, c.caps())));
      if (pathOnSome && canConstrain && !narrowed) {
        log.add(
            new TraceStep(
                "completion",
                "no candidate where "
                    + path
                    + " works runs native sidecars; choosing again among the "
                    + withNativeAnywhere.stream().mapToInt(c -> Math.max(c.count(), 1)).sum()
                    + " candidate(s) that do"));
        return new Placement.ChooseAgain(withNativeAnywhere);
      }
      Optional<Outcome> end =
          noNativeSidecar(
              DecisionTexts.noNativeNode(
                  !withNativeAnywhere.isEmpty(),
                  shortfalls.nativeLacks(allCandidates),
                  withoutPath(options, allCandidates)),
              DecisionTexts.fixNoNativeNode());
      return end.isPresent()
          ? new Placement.Ended(end.get())
          : new Placement.Placed(ProxyPlacement.CONTAINER);
    }
    if (noneNative || !canConstrain) {
      return new Placement.Ended(nativeRefusal(remaining, noneNative, asked));
    }
    if (restartPolicy == null) {
      requirements.add(nativeRequirement("asked for"));
      log.warn(DecisionTexts.constrainedToNative(shortfalls.nativeLacks(remaining)));
    } else {
      constrainForCompletion(requirements, remaining);
    }
    return new Placement.Placed(ProxyPlacement.NATIVE_SIDECAR);
  }

  /**
   * Keeps a pod that runs to completion on the nodes that run native sidecars, where a regular
   * proxy container would never let it finish; the warning names what {@code candidates} lack.
   */
  private void constrainForCompletion(
      List<NodeRequirement> requirements, List<Candidate> candidates) {
    requirements.add(nativeRequirement("the pod runs to completion"));
    log.warn(DecisionTexts.constrainedForCompletion(shortfalls.nativeLacks(candidates)));
    log.completed(CompletionRule.CONSTRAINED, "constrained to the nodes that run native sidecars");
  }

  private NodeRequirement nativeRequirement(String why) {
    CapabilityKey ns = CapabilityKey.NATIVE_SIDECAR;
    List<String> values = viability.viableLabelValues(ns);
    log.add(
        new TraceStep("constraint", "requires " + ns.label() + " In " + values + " (" + why + ")"));
    return NodeRequirement.in(ns.label(), values);
  }

  /**
   * A run-to-completion pod can have no native sidecar: {@code policy.runToCompletion} decides.
   *
   * @return the outcome that ends the decision, or empty to inject with a regular proxy container
   */
  private Optional<Outcome> noNativeSidecar(String why, String fix) {
    RunToCompletion policy = config.policy().runToCompletion();
    String msg = DecisionTexts.noNativeSidecar(workload, restartPolicy, why, fix);
    switch (policy) {
      case REJECT -> {
        log.completed(
            CompletionRule.REFUSED, "no native sidecar possible: refused (" + policyKey() + ")");
        return Optional.of(new Outcome.Refuse(RefusalReason.RUN_TO_COMPLETION, msg));
      }
      case SKIP -> {
        log.completed(
            CompletionRule.SKIPPED,
            "no native sidecar possible: admitted without injection (" + policyKey() + ")");
        log.warn(DecisionTexts.admittedWithoutInjection(msg, policyKey()));
        return Optional.of(new Outcome.Skip(SkipReason.RUN_TO_COMPLETION, msg));
      }
      case INJECT -> {
        log.completed(
            CompletionRule.CONTAINER,
            "no native sidecar possible: regular proxy container (" + policyKey() + ")");
        log.warn(DecisionTexts.injectedAsContainer(msg, policyKey()));
        return Optional.empty();
      }
    }
    throw new IllegalStateException("unhandled policy.runToCompletion " + policy);
  }

  private String policyKey() {
    return DecisionTexts.runToCompletionSetting(config.policy().runToCompletion());
  }

  /**
   * The pod needs a native sidecar (it asks for one, or it runs to completion) and the nodes left
   * cannot all give it one: none of them does, or no constraint may narrow them to those that do.
   */
  private Outcome nativeRefusal(
      List<Candidate> remaining, boolean noneNative, PodAnnotations asked) {
    if (restartPolicy != null && asked.nativeSidecar() == null) {
      // some remaining node runs native sidecars (a pod on none of them ended in place()), so
      // what refuses it here is the constrain rule
      ConstrainPolicy.WhyNot why = config.policy().constrain().whyNot().orElseThrow();
      String msg =
          DecisionTexts.mixedNativeForCompletion(
              workload, restartPolicy, why, shortfalls.nativeLacks(remaining));
      log.completed(CompletionRule.MIXED_NODES, DecisionTexts.mixedNativeRefusedStep(why));
      return new Outcome.Refuse(RefusalReason.MIXED_NODES, msg);
    }
    String msg =
        DecisionTexts.nativeAsked(
            asked.nativeSidecarBy(), noneNative, workload, shortfalls.nativeLacks(remaining));
    log.add(new TraceStep("proxy", msg));
    if (!noneNative) {
      completedIfRunsToCompletion(CompletionRule.MIXED_NODES, asked);
      return new Outcome.Refuse(RefusalReason.MIXED_NODES, msg);
    }
    // no candidate can run the pod as asked, which is what policy.noViablePath decides (the
    // annotation's own rule, whatever the pod's restart policy)
    if (config.policy().noViablePath() == NoViablePath.SKIP) {
      completedIfRunsToCompletion(CompletionRule.SKIPPED, asked);
      log.warn(DecisionTexts.admittedWithoutInjection(msg, DecisionTexts.NO_VIABLE_PATH_SKIP));
      return new Outcome.Skip(SkipReason.NO_VIABLE_PATH, msg);
    }
    completedIfRunsToCompletion(CompletionRule.REFUSED, asked);
    return new Outcome.Refuse(RefusalReason.NO_VIABLE_PATH, msg);
  }

  private void completedIfRunsToCompletion(CompletionRule rule, PodAnnotations asked) {
    if (restartPolicy != null) {
      log.completed(rule, "the pod asks for " + asked.nativeSidecarBy() + ": " + rule);
    }
  }

  /** The candidates that run native sidecars but on which no path works, if any. */
  private String withoutPath(List<PathOption> options, List<Candidate> allCandidates) {
    List<Candidate> nativeOnly =
        allCandidates.stream().filter(c -> viability.nativeSidecar(c.caps())).toList();
    return nativeOnly.isEmpty() ? "" : "; " + shortfalls.lacks(options, nativeOnly);
  }
}
