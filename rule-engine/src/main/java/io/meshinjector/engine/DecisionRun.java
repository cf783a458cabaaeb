package io.meshinjector.engine;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.ConstrainPolicy;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.config.NoViablePath;
import io.meshinjector.engine.config.PinCni;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.ConfigOverride;
import io.meshinjector.engine.decision.ConfigOverrides;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.NodeConstraint;
import io.meshinjector.engine.decision.NodeRequirement;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.Redirect;
import io.meshinjector.engine.decision.RefusalReason;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.linkerd.LinkerdConfig;
import io.meshinjector.engine.rules.AwaitFromPod;
import io.meshinjector.engine.rules.InjectGate;
import io.meshinjector.engine.rules.LinkerdLayout;
import io.meshinjector.engine.rules.PodAnnotations;
import io.meshinjector.engine.rules.RunsToCompletion;
import io.meshinjector.engine.rules.Viability;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One decision, start to end: runs the steps in order (gate, annotations, path options, candidates,
 * path choice, node constraint, proxy placement) and holds what they find.
 */
final class DecisionRun {
  private final EngineConfig config;
  private final Instant now;
  private final String workload;
  private final Pod pod;
  private final ClusterView cluster;
  private final DecisionLog log = new DecisionLog();
  private final String restartPolicy;
  private CandidateNodes candidateNodes = CandidateNodes.NONE;

  /**
   * Set once the candidates are known: whether a path works depends on whether the pod's redirect
   * covers IPv6, which its candidates decide.
   */
  private Viability viability;

  private Shortfalls shortfalls;
  private NativeSidecarRule nativeSidecars;

  /** The candidate classes that run Linux: the only ones the pod may be placed on injected. */
  private List<Candidate> linuxClasses = List.of();

  /** The term that keeps the pod off its Windows candidates, or null. */
  private NodeRequirement linuxOnly;

  /** Whether the pod's redirect covers IPv6. */
  private boolean ipv6;

  /** Whether the pod decided proxy-await in its mesh's terms (the trace says so once). */
  private boolean awaitFromPod;

  /** The mesh's per-workload configuration annotations that apply to the pod. */
  private ConfigOverrides overrides = ConfigOverrides.NONE;

  DecisionRun(EngineConfig config, Instant now, String workload, Pod pod, ClusterView cluster) {
    this.config = config;
    this.now = now;
    this.workload = workload;
    this.pod = pod;
    this.cluster = cluster;
    this.restartPolicy = RunsToCompletion.restartPolicy(pod.getSpec()).orElse(null);
  }

  Decision run() {
    Outcome outcome = decide();
    return new Decision(
        workload,
        outcome,
        candidateNodes.names(),
        candidateNodes.count(),
        candidateNodes.classLines(),
        log.warnings(),
        log.trace(),
        log.completion(),
        overrides);
  }

  private Outcome decide() {
    String nsName = pod.getMetadata().getNamespace();
    Namespace ns = nsName == null ? null : cluster.namespace(nsName).orElse(null);
    Optional<Outcome> gated =
        new InjectGate(config.injection()).check(pod, ns, log::add, log::warn);
    if (gated.isPresent()) {
      return gated.get();
    }
    Viability nodes = new Viability(config.capabilities());
    LinuxNodesRule linux = new LinuxNodesRule(config.policy().constrain(), nodes, log, workload);
    Optional<Outcome> windowsPod = linux.windowsPod(pod);
    if (windowsPod.isPresent()) {
      return windowsPod.get();
    }
    PodAnnotations asked;
    try {
      asked = PodAnnotations.parse(pod.getMetadata().getAnnotations(), config.mesh());
    } catch (PodAnnotations.InvalidAnnotation e) {
      log.add(new TraceStep("annotations", e.getMessage()));
      return new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, e.getMessage());
    }
    Optional<AwaitFromPod.Decided> podAwait;
    try {
      podAwait =
          AwaitFromPod.decide(
              pod.getMetadata().getAnnotations(),
              config.injection().proxyAwaitFrom(),
              asked.proxyAwait());
    } catch (IllegalArgumentException e) {
      log.add(new TraceStep("annotations", e.getMessage()));
      return new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, e.getMessage());
    }
    if (podAwait.isPresent()) {
      awaitFromPod = true;
      log.add(new TraceStep("await", podAwait.get().why()));
      asked = asked.withProxyAwait(podAwait.get().await());
    }
    if (config.injection().meshAnnotations() == InjectionConfig.MeshAnnotations.LINKERD) {
      asked = linkerdOverrides(ns, asked);
    }

    PathOptions pathOptions = new PathOptions(config.policy().preference(), config.mesh(), log);
    List<PathOption> options = pathOptions.allowed(asked);
    if (options.isEmpty()) {
      // only a redirect annotation asking for a path the preference lacks ends here
      return pathOptions.notOffered(asked);
    }
    Optional<Outcome> refused = pathOptions.applyPodSecurity(options, ns, nsName, asked);
    if (refused.isPresent()) {
      return refused.get();
    }
    log.add(new TraceStep("options", "paths in preference order: " + options));

    candidateNodes = CandidateNodes.of(cluster, now, pod, config.maxCandidateNodes(), log);
    LinuxNodesRule.Kept kept = linux.keep(candidateNodes.classes(), candidateNodes.count());
    if (kept instanceof LinuxNodesRule.Kept.Ended ended) {
      return ended.outcome();
    }
    LinuxNodesRule.Kept.Linux onLinux = (LinuxNodesRule.Kept.Linux) kept;
    linuxClasses = onLinux.classes();
    linuxOnly = onLinux.requirement();
    ipv6 = Ipv6Rule.decide(nodes, linuxClasses, log);
    viability = nodes.forPod(ipv6);
    shortfalls = new Shortfalls(viability);
    nativeSidecars =
        new NativeSidecarRule(config, viability, shortfalls, log, workload, restartPolicy);
    return choose(options, linuxClasses, asked, false);
  }

  /**
   * Reads Linkerd's configuration annotations of the pod and its namespace: each that applies is
   * traced (explain shows it), each bad value warned about, and the layout and await they ask for
   * go into the engine's own choices.
   */
  private PodAnnotations linkerdOverrides(Namespace ns, PodAnnotations asked) {
    ConfigOverrides read = LinkerdConfig.resolve(pod, ns, log::warn);
    List<ConfigOverride> applied = new ArrayList<>();
    for (ConfigOverride o : read.applied()) {
      String leftOut = LinkerdConfig.leftOut(o.annotation());
      if (leftOut != null) {
        log.warn(
            "annotation " + o.annotation() + " (" + o.source() + ") is not applied: " + leftOut);
      } else {
        applied.add(o);
        log.add(new TraceStep("linkerd", o.toString()));
      }
    }
    overrides = new ConfigOverrides(applied);
    Map<String, String> own =
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
    return LinkerdLayout.apply(asked, overrides, own, log::add, log::warn);
  }

  /**
   * @param narrowed the candidates are only those that run native sidecars: a run-to-completion
   *     pod's second choice, which constrains it to them
   */
  private Outcome choose(
      List<PathOption> options,
      List<Candidate> candidates,
      PodAnnotations asked,
      boolean narrowed) {
    int total = candidates.stream().mapToInt(c -> Math.max(c.count(), 1)).sum();
    PathOption best = null;
    int bestCount = 0;
    for (PathOption o : options) {
      int count =
          candidates.stream()
              .filter(c -> viability.viable(o, c.caps()))
              .mapToInt(c -> Math.max(c.count(), 1))
              .sum();
      log.add(new TraceStep("choice", o + " works on " + count + " of " + total + " candidate(s)"));
      if (count == total) {
        log.add(new TraceStep("choice", o + " works on every candidate: chosen"));
        return plan(o, options, candidates, false, asked, narrowed);
      }
      if (count > bestCount) {
        best = o;
        bestCount = count;
      }
    }
    if (best == null) {
      String msg =
          DecisionTexts.noPathAnywhere(
              workload, shortfalls.lacks(options, candidates), shortfalls.fixes(options));
      log.add(new TraceStep("choice", "no path works anywhere"));
      if (config.policy().noViablePath() == NoViablePath.SKIP) {
        log.warn(DecisionTexts.admittedWithoutInjection(msg, DecisionTexts.NO_VIABLE_PATH_SKIP));
        return new Outcome.Skip(SkipReason.NO_VIABLE_PATH, msg);
      }
      return new Outcome.Refuse(RefusalReason.NO_VIABLE_PATH, msg);
    }
    Optional<ConstrainPolicy.WhyNot> whyNot = config.policy().constrain().whyNot();
    if (whyNot.isPresent()) {
      String msg =
          DecisionTexts.mixedPaths(
              workload,
              whyNot.get(),
              shortfalls.lacks(options, candidates),
              shortfalls.fixes(options));
      log.add(new TraceStep("choice", DecisionTexts.mixedPathsRefusedStep(whyNot.get())));
      return new Outcome.Refuse(RefusalReason.MIXED_NODES, msg);
    }
    log.add(
        new TraceStep(
            "choice",
            best
                + " works on the most candidates ("
                + bestCount
                + " of "
                + total
                + "): constrained"));
    return plan(best, options, candidates, true, asked, narrowed);
  }

  private Outcome plan(
      PathOption path,
      List<PathOption> options,
      List<Candidate> candidates,
      boolean constrained,
      PodAnnotations asked,
      boolean narrowed) {
    // a run-to-completion pod may be decided again over fewer candidates; the warnings of this
    // attempt then no longer hold, while its trace shows how the engine got there
    int warningMark = log.warningMark();
    List<NodeRequirement> requirements = new ArrayList<>();
    if (linuxOnly != null) {
      requirements.add(linuxOnly);
    }
    List<CapabilityKey> keys = viability.keys(path);
    List<Candidate> remaining =
        candidates.stream().filter(c -> viability.viable(path, c.caps())).toList();
    boolean pin =
        path.redirect() == Redirect.CNI
            && (config.policy().pinCni() == PinCni.ALWAYS || constrained);
    if (constrained || pin) {
      for (CapabilityKey key : keys) {
        requirements.add(NodeRequirement.in(key.label(), viability.viableLabelValues(key)));
        log.add(
            new TraceStep(
                "constraint",
                "requires "
                    + key.label()
                    + " In "
                    + viability.viableLabelValues(key)
                    + (constrained ? "" : " (policy.pinCni: always, for nodes that join later)")));
      }
    }
    if (constrained) {
      int kept = remaining.stream().mapToInt(Candidate::count).sum();
      log.warn(
          DecisionTexts.constrainedToPath(
              kept,
              candidateNodes.count(),
              path,
              shortfalls.lacks(
                  List.of(path),
                  candidates.stream().filter(c -> !remaining.contains(c)).toList())));
    }
    for (CapabilityKey key : keys) {
      shortfalls.unknownAssumed(key, remaining).ifPresent(log::warn);
    }

    NativeSidecarRule.Placement placement =
        nativeSidecars.place(path, options, remaining, linuxClasses, asked, narrowed, requirements);
    if (placement instanceof NativeSidecarRule.Placement.Ended ended) {
      return ended.outcome();
    }
    if (placement instanceof NativeSidecarRule.Placement.ChooseAgain again) {
      log.dropWarningsSince(warningMark);
      return choose(options, again.among(), asked, true);
    }
    ProxyPlacement proxy = ((NativeSidecarRule.Placement.Placed) placement).proxy();
    if (!asked.proxyAwait() && !awaitFromPod) {
      log.add(new TraceStep("await", Annotations.PROXY_AWAIT + ": disabled"));
    }
    NodeConstraint constraint = requirements.isEmpty() ? null : new NodeConstraint(requirements);
    Plan plan = new Plan(path, proxy, asked.proxyAwait(), ipv6, constraint);
    String note = config.pathNotes().get(plan.path().toString());
    if (note != null) {
      log.add(new TraceStep("mesh", note));
    }
    log.add(new TraceStep("decision", plan.summary()));
    return new Outcome.Inject(plan);
  }
}
