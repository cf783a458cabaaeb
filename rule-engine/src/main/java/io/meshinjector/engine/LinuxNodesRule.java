package io.meshinjector.engine;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodOS;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.config.ConstrainPolicy;
import io.meshinjector.engine.decision.NodeRequirement;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.RefusalReason;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.rules.Viability;
import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The mesh's proxy and init containers are Linux programs: a pod that runs on Windows is never
 * injected, and a pod that may land on Windows and Linux nodes is kept to the Linux ones (or
 * refused where no constraint may be added). The API server would refuse a Windows pod whose init
 * container sets capabilities or runAsUser, so injecting it would only fail it.
 */
final class LinuxNodesRule {
  private final ConstrainPolicy constrain;
  private final Viability viability;
  private final DecisionLog log;
  private final String workload;

  LinuxNodesRule(ConstrainPolicy constrain, Viability viability, DecisionLog log, String workload) {
    this.constrain = constrain;
    this.viability = viability;
    this.log = log;
    this.workload = workload;
  }

  /** What the rule leaves: the pod ends here, or goes on over its Linux candidates. */
  sealed interface Kept {
    record Ended(Outcome outcome) implements Kept {}

    /**
     * @param requirement the node-affinity term that keeps the pod off Windows nodes, or null
     */
    record Linux(List<Candidate> classes, NodeRequirement requirement) implements Kept {}
  }

  /** The skip of a pod that sets {@code spec.os.name: windows}; empty for any other. */
  Optional<Outcome> windowsPod(Pod pod) {
    PodOS os = pod.getSpec() == null ? null : pod.getSpec().getOs();
    if (os == null || !"windows".equals(os.getName())) {
      return Optional.empty();
    }
    String msg = DecisionTexts.windowsPod(workload);
    log.add(new TraceStep("os", msg));
    log.warn(msg);
    return Optional.of(new Outcome.Skip(SkipReason.WINDOWS, msg));
  }

  /** Keeps the pod to its Linux candidates: all of them, some (constrained), or none (skipped). */
  Kept keep(List<Candidate> classes, int candidateCount) {
    List<Candidate> windows = classes.stream().filter(c -> !viability.linux(c.caps())).toList();
    if (windows.isEmpty()) {
      return new Kept.Linux(classes, null);
    }
    List<Candidate> linux = classes.stream().filter(c -> viability.linux(c.caps())).toList();
    String named = describe(windows);
    if (linux.isEmpty()) {
      String msg = DecisionTexts.onlyWindowsNodes(workload, named);
      log.add(new TraceStep("os", msg));
      log.warn(msg);
      return new Kept.Ended(new Outcome.Skip(SkipReason.WINDOWS, msg));
    }
    Optional<ConstrainPolicy.WhyNot> whyNot = constrain.whyNot();
    if (whyNot.isPresent()) {
      String msg = DecisionTexts.windowsAmongCandidates(workload, whyNot.get(), named);
      log.add(new TraceStep("os", msg));
      return new Kept.Ended(new Outcome.Refuse(RefusalReason.MIXED_NODES, msg));
    }
    CapabilityKey os = CapabilityKey.OS;
    NodeRequirement requirement = NodeRequirement.in(os.label(), viability.viableLabelValues(os));
    int kept = linux.stream().mapToInt(Candidate::count).sum();
    log.add(
        new TraceStep(
            "os",
            "requires "
                + os.label()
                + " In "
                + viability.viableLabelValues(os)
                + ": the pod may land on Windows nodes"));
    log.warn(DecisionTexts.constrainedToLinux(kept, candidateCount, named));
    return new Kept.Linux(linux, requirement);
  }

  private static String describe(List<Candidate> classes) {
    StringJoiner j = new StringJoiner("; ");
    classes.forEach(c -> j.add(c.describe() + " os " + c.caps().get(CapabilityKey.OS)));
    return j.toString();
  }
}
