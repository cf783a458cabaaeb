package io.meshinjector.engine;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.capability.SourcedVerdict;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeClass;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.config.MixedNodes;
import io.meshinjector.engine.config.NoViablePath;
import io.meshinjector.engine.config.PinCni;
import io.meshinjector.engine.config.RunToCompletion;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.CompletionRule;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.IptablesMode;
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
import io.meshinjector.engine.rules.AwaitFromPod;
import io.meshinjector.engine.rules.InjectGate;
import io.meshinjector.engine.rules.PodAnnotations;
import io.meshinjector.engine.rules.RunsToCompletion;
import io.meshinjector.engine.rules.Viability;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

/** One decision, start to end; holds the trace and warnings while it runs. */
final class DecisionRun {
  private static final Set<String> PSA_FORBIDS_NET_ADMIN = Set.of("baseline", "restricted");

  private final EngineConfig config;
  private final Instant now;
  private final String workload;
  private final Pod pod;
  private final ClusterView cluster;
  private final Viability viability;
  private final List<TraceStep> trace = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();
  private List<String> candidateNames = List.of();
  private List<Candidate> allCandidates = List.of();

  /** Never or OnFailure when the pod runs to completion, else null. */
  private final String restartPolicy;

  /** How the run-to-completion rule treated the pod; null while it has not applied. */
  private CompletionRule completion;

  private int candidateCount;
  private final List<String> classLines = new ArrayList<>();

  /** A capability class restricted to the pod's candidates. */
  private record Candidate(NodeClass cls, BitSet members, int count, List<String> sample) {
    NodeCapabilities caps() {
      return cls.capabilities();
    }

    String describe() {
      String names = String.join(", ", sample) + (count > sample.size() ? ", ..." : "");
      return "class "
          + cls.id()
          + " ("
          + count
          + (count == 1 ? " node: " : " nodes: ")
          + names
          + ")";
    }
  }

  DecisionRun(EngineConfig config, Instant now, String workload, Pod pod, ClusterView cluster) {
    this.config = config;
    this.now = now;
    this.workload = workload;
    this.pod = pod;
    this.cluster = cluster;
    this.viability = new Viability(config.capabilities());
    this.restartPolicy = RunsToCompletion.restartPolicy(pod.getSpec()).orElse(null);
  }

  Decision run() {
    return decision(decide());
  }

  private Decision decision(Outcome outcome) {
    return new Decision(
        workload, outcome, candidateNames, candidateCount, classLines, warnings, trace, completion);
  }

  /** Whether the pod decided proxy-await in its mesh's terms (the trace says so once). */
  private boolean awaitFromPod;

  private Outcome decide() {
    String nsName = pod.getMetadata().getNamespace();
    Namespace ns = nsName == null ? null : cluster.namespace(nsName).orElse(null);
    Optional<Outcome> gated =
        new InjectGate(config.injection()).check(pod, ns, trace::add, warnings::add);
    if (gated.isPresent()) {
      return gated.get();
    }
    PodAnnotations asked;
    try {
      asked = PodAnnotations.parse(pod.getMetadata().getAnnotations());
    } catch (PodAnnotations.InvalidAnnotation e) {
      trace.add(new TraceStep("annotations", e.getMessage()));
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
      trace.add(new TraceStep("annotations", e.getMessage()));
      return new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, e.getMessage());
    }
    if (podAwait.isPresent()) {
      awaitFromPod = true;
      trace.add(new TraceStep("await", podAwait.get().why()));
      asked = asked.withProxyAwait(podAwait.get().await());
    }

    List<PathOption> options = options(asked);
    if (options.isEmpty()) {
      // only a redirect annotation asking for a path the preference lacks ends here
      String msg =
          "the pod asks for "
              + Annotations.REDIRECT
              + ": "
              + asked.redirect()
              + ", but policy.preference "
              + config.policy().preference()
              + " does not offer the "
              + asked.redirect()
              + " path; remove the annotation or add "
              + asked.redirect()
              + " to policy.preference";
      trace.add(new TraceStep("annotations", msg));
      return new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, msg);
    }
    String psa = psaLevel(ns);
    if (psa != null && PSA_FORBIDS_NET_ADMIN.contains(psa)) {
      if (options.removeIf(o -> o.redirect() == Redirect.INIT)) {
        trace.add(
            new TraceStep(
                "constraints",
                "Pod Security '" + psa + "' forbids NET_ADMIN/NET_RAW: the init path is out"));
      }
      if (options.isEmpty()) {
        String msg = podSecurityRefusal(nsName, psa, asked);
        trace.add(new TraceStep("constraints", msg));
        return new Outcome.Refuse(RefusalReason.POD_SECURITY, msg);
      }
    }
    trace.add(new TraceStep("options", "paths in preference order: " + options));

    allCandidates = candidates();
    return choose(options, allCandidates, asked, false);
  }

  /**
   * Pod Security left no path: either the pod asks for the init path, or the operator's preference
   * offers nothing but init. The message names whichever it is, and its fix.
   */
  private String podSecurityRefusal(String nsName, String psa, PodAnnotations asked) {
    List<PathOption> preference = config.policy().preference();
    boolean preferenceHasCni = preference.stream().anyMatch(o -> o.redirect() == Redirect.CNI);
    String head =
        "namespace "
            + nsName
            + " enforces Pod Security '"
            + psa
            + "', which forbids the NET_ADMIN and NET_RAW the init path needs, and ";
    String cniFix = "add cni to policy.preference and install the mesh CNI plugin";
    if (asked.redirect() == Redirect.INIT) {
      return head
          + "the pod asks for "
          + Annotations.REDIRECT
          + ": init; remove the annotation so the pod takes the CNI path"
          + (preferenceHasCni ? " (install the mesh CNI plugin)" : ", and " + cniFix);
    }
    return head + "policy.preference " + preference + " offers no other path; " + cniFix;
  }

  /** The paths the configured preference and the pod's annotations allow, most preferred first. */
  private List<PathOption> options(PodAnnotations asked) {
    // the pod chooses among the operator's paths and never adds one: the init path needs
    // NET_ADMIN, and an annotation must not grant a privilege the operator left out
    List<PathOption> options = new ArrayList<>(config.policy().preference());
    boolean preferenceHasInit = options.stream().anyMatch(o -> o.redirect() == Redirect.INIT);
    if (asked.iptablesMode() != null && !preferenceHasInit) {
      if (asked.redirect() != Redirect.INIT) {
        warnings.add(
            Annotations.IPTABLES_MODE
                + " is ignored: policy.preference "
                + options
                + " offers no init path");
      }
    } else if (asked.iptablesMode() != null) {
      PathOption wanted = new PathOption(Redirect.INIT, asked.iptablesMode());
      int first = firstInit(options);
      options.removeIf(o -> o.redirect() == Redirect.INIT);
      options.add(first, wanted);
      trace.add(new TraceStep("annotations", Annotations.IPTABLES_MODE + " asks for " + wanted));
      if (asked.redirect() == Redirect.CNI) {
        warnings.add(Annotations.IPTABLES_MODE + " is ignored: the pod asks for the cni path");
      }
    }
    if (asked.redirect() != null) {
      options.removeIf(o -> o.redirect() != asked.redirect());
      trace.add(
          new TraceStep("annotations", Annotations.REDIRECT + " asks for " + asked.redirect()));
    }
    return options;
  }

  private static int firstInit(List<PathOption> options) {
    for (int i = 0; i < options.size(); i++) {
      if (options.get(i).redirect() == Redirect.INIT) {
        return i;
      }
    }
    return -1;
  }

  private static String psaLevel(Namespace ns) {
    if (ns == null || ns.getMetadata().getLabels() == null) {
      return null;
    }
    return ns.getMetadata().getLabels().get(Annotations.PSA_ENFORCE);
  }

  /** The capability classes among the nodes the pod could land on. */
  private List<Candidate> candidates() {
    NodeIndex index = cluster.nodes(now);
    BitSet bits = index.candidates(pod.getSpec());
    candidateCount = bits.cardinality();
    int max = config.maxCandidateNodes();
    candidateNames = index.names(bits, max);
    List<Candidate> out = new ArrayList<>();
    if (candidateCount == 0) {
      String why =
          index.isEmpty()
              ? "the cluster view has no nodes"
              : "no known node matches the pod's scheduling rules (a node may join later)";
      warnings.add(why + "; deciding for a node whose capabilities are all unknown");
      trace.add(new TraceStep("candidates", why));
      NodeCapabilities unknown = new NodeCapabilities(unknownVerdicts(why));
      out.add(new Candidate(new NodeClass(0, unknown, new BitSet()), new BitSet(), 0, List.of()));
      classLines.add("unknown node: " + unknown.profile());
      return out;
    }
    for (NodeClass cls : index.classes()) {
      BitSet members = (BitSet) cls.members().clone();
      members.and(bits);
      int count = members.cardinality();
      if (count > 0) {
        Candidate c = new Candidate(cls, members, count, index.names(members, Math.min(max, 5)));
        out.add(c);
        classLines.add(c.describe() + ": " + cls.verdictLine());
      }
    }
    trace.add(
        new TraceStep(
            "candidates",
            candidateCount
                + " candidate node(s) in "
                + out.size()
                + " capability class(es) from nodeName, nodeSelector, required node affinity and"
                + " taints"));
    for (String line : classLines) {
      trace.add(new TraceStep("classes", line));
    }
    return out;
  }

  private static Map<CapabilityKey, SourcedVerdict> unknownVerdicts(String why) {
    Map<CapabilityKey, SourcedVerdict> m = new EnumMap<>(CapabilityKey.class);
    for (CapabilityKey k : CapabilityKey.values()) {
      m.put(k, SourcedVerdict.unknown(why));
    }
    return m;
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
      trace.add(
          new TraceStep("choice", o + " works on " + count + " of " + total + " candidate(s)"));
      if (count == total) {
        trace.add(new TraceStep("choice", o + " works on every candidate: chosen"));
        return plan(o, options, candidates, false, asked, narrowed);
      }
      if (count > bestCount) {
        best = o;
        bestCount = count;
      }
    }
    if (best == null) {
      String msg =
          "no redirect path works on any candidate node of "
              + workload
              + ": "
              + lacks(options, candidates)
              + fixes(options);
      trace.add(new TraceStep("choice", "no path works anywhere"));
      if (config.policy().noViablePath() == NoViablePath.SKIP) {
        warnings.add(msg + "; admitted without injection (policy.noViablePath: skip)");
        return new Outcome.Skip(SkipReason.NO_VIABLE_PATH, msg);
      }
      return new Outcome.Refuse(RefusalReason.NO_VIABLE_PATH, msg);
    }
    if (config.policy().mixedNodes() == MixedNodes.REJECT || !config.policy().publishLabels()) {
      String why =
          config.policy().mixedNodes() == MixedNodes.REJECT
              ? "policy.mixedNodes is reject"
              : "policy.publishLabels is off, so no capability label could pin the pod";
      String msg =
          "no redirect path works on every candidate node of "
              + workload
              + " ("
              + why
              + "): "
              + lacks(options, candidates)
              + fixes(options);
      trace.add(new TraceStep("choice", "mixed node classes refused: " + why));
      return new Outcome.Refuse(RefusalReason.MIXED_NODES, msg);
    }
    trace.add(
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
    int warningMark = warnings.size();
    List<NodeRequirement> requirements = new ArrayList<>();
    CapabilityKey key = viability.key(path);
    List<Candidate> remaining =
        candidates.stream().filter(c -> viability.viable(path, c.caps())).toList();
    boolean pin =
        path.redirect() == Redirect.CNI
            && (config.policy().pinCni() == PinCni.ALWAYS || constrained);
    if (constrained || pin) {
      requirements.add(NodeRequirement.in(key.label(), viability.viableLabelValues(key)));
      trace.add(
          new TraceStep(
              "constraint",
              "requires "
                  + key.label()
                  + " In "
                  + viability.viableLabelValues(key)
                  + (constrained ? "" : " (policy.pinCni: always, for nodes that join later)")));
    }
    if (constrained) {
      int kept = remaining.stream().mapToInt(Candidate::count).sum();
      warnings.add(
          "pod constrained to the "
              + kept
              + " of "
              + candidateCount
              + " candidate nodes where "
              + path
              + " works; the others lack it: "
              + lacks(
                  List.of(path), candidates.stream().filter(c -> !remaining.contains(c)).toList()));
    }
    warnUnknown(key, remaining);

    List<Candidate> lackingNative =
        remaining.stream().filter(c -> !viability.nativeSidecar(c.caps())).toList();
    if (restartPolicy != null && !narrowed) {
      trace.add(
          new TraceStep(
              "completion",
              "restartPolicy "
                  + restartPolicy
                  + ": the pod runs to completion, so its proxy must end when the app ends, as a"
                  + " native sidecar"));
    }
    ProxyPlacement proxy;
    if (Boolean.FALSE.equals(asked.nativeSidecar())) {
      proxy = ProxyPlacement.CONTAINER;
      trace.add(
          new TraceStep("proxy", Annotations.NATIVE_SIDECAR + ": disabled: regular container"));
      if (restartPolicy != null) {
        // the pod opts out of native sidecars, so it counts as running on no node that has them
        Optional<Outcome> end =
            noNativeSidecar(
                "it says " + Annotations.NATIVE_SIDECAR + ": disabled",
                "remove the annotation " + Annotations.NATIVE_SIDECAR + ": disabled");
        if (end.isPresent()) {
          return end.get();
        }
      }
    } else if (lackingNative.isEmpty()) {
      proxy = ProxyPlacement.NATIVE_SIDECAR;
      trace.add(new TraceStep("proxy", "every remaining candidate runs native sidecars"));
      warnUnknown(CapabilityKey.NATIVE_SIDECAR, remaining);
      if (narrowed) {
        requirements.add(nativeRequirement("the pod runs to completion"));
        warnings.add(
            "pod constrained to nodes that run native sidecars, as it runs to completion: "
                + nativeLacks(allCandidates));
        completed(CompletionRule.CONSTRAINED, "constrained to the nodes that run native sidecars");
      } else if (restartPolicy != null) {
        completed(
            CompletionRule.NATIVE_SIDECAR,
            "every remaining candidate runs native sidecars: the proxy ends when the app ends");
      }
    } else if (asked.nativeSidecar() == null && restartPolicy == null) {
      proxy = ProxyPlacement.CONTAINER;
      trace.add(
          new TraceStep(
              "proxy",
              "not every remaining candidate runs native sidecars (kubelet < 1.29 or unknown):"
                  + " regular container"));
    } else {
      boolean noneNative = lackingNative.size() == remaining.size();
      boolean canConstrain =
          config.policy().mixedNodes() != MixedNodes.REJECT && config.policy().publishLabels();
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
          warnings.subList(warningMark, warnings.size()).clear();
          trace.add(
              new TraceStep(
                  "completion",
                  "no candidate where "
                      + path
                      + " works runs native sidecars; choosing again among the "
                      + withNativeAnywhere.stream().mapToInt(c -> Math.max(c.count(), 1)).sum()
                      + " candidate(s) that do"));
          return choose(options, withNativeAnywhere, asked, true);
        }
        Optional<Outcome> end =
            noNativeSidecar(
                (allCandidates.stream().anyMatch(c -> viability.nativeSidecar(c.caps()))
                        ? "no candidate node runs both native sidecars (kubelet >= 1.29) and a"
                            + " working redirect path: "
                        : "no candidate node runs native sidecars (kubelet >= 1.29): ")
                    + nativeLacks(allCandidates)
                    + withoutPath(options),
                "let it run on nodes whose kubelet is 1.29 or later (upgrade these nodes' kubelet,"
                    + " or widen the pod's nodeSelector or node affinity)");
        if (end.isPresent()) {
          return end.get();
        }
        proxy = ProxyPlacement.CONTAINER;
      } else if (noneNative || !canConstrain) {
        return nativeRefusal(remaining, noneNative, asked);
      } else {
        proxy = ProxyPlacement.NATIVE_SIDECAR;
        if (restartPolicy == null) {
          requirements.add(nativeRequirement("asked for"));
          warnings.add(
              "pod constrained to nodes that run native sidecars: " + nativeLacks(remaining));
        } else {
          requirements.add(nativeRequirement("the pod runs to completion"));
          warnings.add(
              "pod constrained to nodes that run native sidecars, as it runs to completion: "
                  + nativeLacks(remaining));
          completed(
              CompletionRule.CONSTRAINED, "constrained to the nodes that run native sidecars");
        }
      }
    }
    if (!asked.proxyAwait() && !awaitFromPod) {
      trace.add(new TraceStep("await", Annotations.PROXY_AWAIT + ": disabled"));
    }
    NodeConstraint constraint = requirements.isEmpty() ? null : new NodeConstraint(requirements);
    Plan plan = new Plan(path, proxy, asked.proxyAwait(), constraint);
    String note = config.pathNotes().get(plan.path().toString());
    if (note != null) {
      trace.add(new TraceStep("mesh", note));
    }
    trace.add(new TraceStep("decision", plan.summary()));
    return new Outcome.Inject(plan);
  }

  private void completed(CompletionRule rule, String detail) {
    completion = rule;
    trace.add(new TraceStep("completion", detail));
  }

  private NodeRequirement nativeRequirement(String why) {
    CapabilityKey ns = CapabilityKey.NATIVE_SIDECAR;
    List<String> values = viability.viableLabelValues(ns);
    trace.add(
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
    String msg =
        workload
            + " runs to completion (restartPolicy: "
            + restartPolicy
            + "), so its proxy must be a native sidecar to end when the app ends, but "
            + why
            + ". Fix: "
            + fix
            + "; or, where the app stops the proxy itself when it is done, set"
            + " policy.runToCompletion: inject";
    switch (policy) {
      case REJECT -> {
        completed(
            CompletionRule.REFUSED, "no native sidecar possible: refused (" + policyKey() + ")");
        return Optional.of(new Outcome.Refuse(RefusalReason.RUN_TO_COMPLETION, msg));
      }
      case SKIP -> {
        completed(
            CompletionRule.SKIPPED,
            "no native sidecar possible: admitted without injection (" + policyKey() + ")");
        warnings.add(msg + "; admitted without injection (" + policyKey() + ")");
        return Optional.of(new Outcome.Skip(SkipReason.RUN_TO_COMPLETION, msg));
      }
      case INJECT -> {
        completed(
            CompletionRule.CONTAINER,
            "no native sidecar possible: regular proxy container (" + policyKey() + ")");
        warnings.add(
            msg
                + "; injected with the proxy as a regular container ("
                + policyKey()
                + "): the pod completes only if the app stops the proxy");
        return Optional.empty();
      }
    }
    throw new IllegalStateException("unhandled policy.runToCompletion " + policy);
  }

  private String policyKey() {
    return "policy.runToCompletion: " + config.policy().runToCompletion().id();
  }

  /**
   * The pod needs a native sidecar (it asks for one, or it runs to completion) and the nodes left
   * cannot all give it one: none of them does, or no constraint may narrow them to those that do.
   */
  private Outcome nativeRefusal(
      List<Candidate> remaining, boolean noneNative, PodAnnotations asked) {
    String why =
        config.policy().mixedNodes() == MixedNodes.REJECT
            ? "policy.mixedNodes is reject"
            : "policy.publishLabels is off, so no capability label could pin the pod";
    if (restartPolicy != null && asked.nativeSidecar() == null) {
      String msg =
          workload
              + " runs to completion (restartPolicy: "
              + restartPolicy
              + "), so its proxy must be a native sidecar, but not every candidate node runs"
              + " native sidecars (kubelet >= 1.29) and "
              + why
              + ": "
              + nativeLacks(remaining)
              + ". Fix: upgrade these nodes' kubelet to 1.29 or later, or keep the pod off them"
              + " (nodeSelector or node affinity), or set policy.mixedNodes: constrain with"
              + " policy.publishLabels: true";
      completed(CompletionRule.MIXED_NODES, "mixed native-sidecar support refused: " + why);
      return new Outcome.Refuse(RefusalReason.MIXED_NODES, msg);
    }
    String msg =
        Annotations.NATIVE_SIDECAR
            + ": enabled, but "
            + (noneNative ? "no" : "not every")
            + " candidate node of "
            + workload
            + " runs native sidecars (kubelet >= 1.29): "
            + nativeLacks(remaining);
    trace.add(new TraceStep("proxy", msg));
    if (!noneNative) {
      completedIfRunsToCompletion(CompletionRule.MIXED_NODES);
      return new Outcome.Refuse(RefusalReason.MIXED_NODES, msg);
    }
    // no candidate can run the pod as asked, which is what policy.noViablePath decides (the
    // annotation's own rule, whatever the pod's restart policy)
    if (config.policy().noViablePath() == NoViablePath.SKIP) {
      completedIfRunsToCompletion(CompletionRule.SKIPPED);
      warnings.add(msg + "; admitted without injection (policy.noViablePath: skip)");
      return new Outcome.Skip(SkipReason.NO_VIABLE_PATH, msg);
    }
    completedIfRunsToCompletion(CompletionRule.REFUSED);
    return new Outcome.Refuse(RefusalReason.NO_VIABLE_PATH, msg);
  }

  private void completedIfRunsToCompletion(CompletionRule rule) {
    if (restartPolicy != null) {
      completed(rule, "the pod asks for " + Annotations.NATIVE_SIDECAR + ": enabled: " + rule);
    }
  }

  /** The candidates that run native sidecars but on which no path works, if any. */
  private String withoutPath(List<PathOption> options) {
    List<Candidate> nativeOnly =
        allCandidates.stream().filter(c -> viability.nativeSidecar(c.caps())).toList();
    return nativeOnly.isEmpty() ? "" : "; " + lacks(options, nativeOnly);
  }

  private void warnUnknown(CapabilityKey key, List<Candidate> remaining) {
    List<String> unknown = new ArrayList<>();
    for (Candidate c : remaining) {
      if (c.caps().verdict(key) == Verdict.UNKNOWN) {
        unknown.add(c.count() == 0 ? "the unknown node" : c.describe());
      }
    }
    if (!unknown.isEmpty() && viability.assumed(key)) {
      warnings.add(
          key.id()
              + " is unknown on "
              + String.join("; ", unknown)
              + ": assumed "
              + key.positive().id()
              + " (capabilities.assumeUnknown)");
    }
  }

  private String nativeLacks(List<Candidate> classes) {
    StringJoiner j = new StringJoiner("; ");
    for (Candidate c : classes) {
      if (!viability.nativeSidecar(c.caps())) {
        j.add(c.describe() + " has native-sidecar " + c.caps().get(CapabilityKey.NATIVE_SIDECAR));
      }
    }
    return j.toString();
  }

  private String lacks(List<PathOption> options, List<Candidate> classes) {
    StringJoiner j = new StringJoiner("; ");
    for (Candidate c : classes) {
      StringJoiner missing = new StringJoiner(", ");
      for (PathOption o : options) {
        if (!viability.viable(o, c.caps())) {
          missing.add(o + " (" + viability.lack(o, c.caps()) + ")");
        }
      }
      // a class on which every path works is not why the pod is refused
      if (missing.length() > 0) {
        j.add((c.count() == 0 ? "unknown node" : c.describe()) + " lacks " + missing);
      }
    }
    return j.toString();
  }

  private static String fixes(List<PathOption> options) {
    StringJoiner j = new StringJoiner("; or ", ". Fix: ", "");
    boolean any = false;
    for (PathOption o : options) {
      if (o.mode() != IptablesMode.PLAIN) {
        j.add(Viability.fix(o));
        any = true;
      }
    }
    return any ? j.toString() : "";
  }
}
