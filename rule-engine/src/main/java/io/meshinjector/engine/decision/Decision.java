package io.meshinjector.engine.decision;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The engine's answer for one pod, with the trace of how it got there. The webhook, {@code inject},
 * {@code explain} and the metrics all read this one value.
 *
 * @param workload {@code namespace/Kind/name} of the pod or the workload that owns the template
 * @param candidateNodes the candidate node names, capped for huge clusters (see candidateCount)
 * @param candidateCount how many nodes the pod could land on before any constraint was added
 * @param nodeClasses one line per capability class among the candidates, with each verdict's source
 * @param completion how the run-to-completion rule treated the pod; null when it did not apply (a
 *     long-running pod, or one decided before the rule was reached)
 * @param overrides the mesh's own per-workload configuration annotations that apply to the pod
 */
public record Decision(
    String workload,
    Outcome outcome,
    List<String> candidateNodes,
    int candidateCount,
    List<String> nodeClasses,
    List<String> warnings,
    List<TraceStep> trace,
    CompletionRule completion,
    ConfigOverrides overrides) {

  public Decision {
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(outcome, "outcome");
    candidateNodes = List.copyOf(candidateNodes);
    nodeClasses = List.copyOf(nodeClasses);
    warnings = List.copyOf(warnings);
    trace = List.copyOf(trace);
    overrides = overrides == null ? ConfigOverrides.NONE : overrides;
  }

  public boolean inject() {
    return outcome instanceof Outcome.Inject;
  }

  public boolean rejected() {
    return outcome instanceof Outcome.Refuse;
  }

  /** How the run-to-completion rule treated the pod, if it applied. */
  public Optional<CompletionRule> completionRule() {
    return Optional.ofNullable(completion);
  }

  public Optional<Plan> plan() {
    return outcome instanceof Outcome.Inject i ? Optional.of(i.plan()) : Optional.empty();
  }

  /** The skip or refusal message, or empty when the pod is injected. */
  public Optional<String> reason() {
    if (outcome instanceof Outcome.Skip s) {
      return Optional.of(s.message());
    }
    if (outcome instanceof Outcome.Refuse r) {
      return Optional.of(r.message());
    }
    return Optional.empty();
  }

  /** The enum code of the outcome, used as a metric label: {@code injected}, or the reason code. */
  public String outcomeCode() {
    if (outcome instanceof Outcome.Skip s) {
      return s.reason().code();
    }
    if (outcome instanceof Outcome.Refuse r) {
      return r.reason().code();
    }
    return "injected";
  }

  /** The one-line summary; for a pod that is not injected, the outcome code. */
  public String summary() {
    return plan().map(Plan::summary).orElseGet(this::outcomeCode);
  }

  /**
   * The JSON object of {@code explain -o json}, in a fixed field order, plus {@code candidateCount}
   * because {@code candidateNodes} is capped.
   */
  private static Map<String, Object> overrideJson(ConfigOverride o) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("annotation", o.annotation());
    m.put("value", o.written());
    m.put("from", o.source());
    return m;
  }

  public Map<String, Object> toJsonMap() {
    Optional<Plan> plan = plan();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("workload", workload);
    m.put("inject", inject());
    m.put("rejected", rejected());
    m.put("reason", reason().orElse(null));
    m.put("redirect", plan.map(p -> p.path().redirect().id()).orElse(null));
    m.put("iptablesMode", plan.map(p -> p.path().mode()).map(IptablesMode::id).orElse(null));
    m.put("proxy", plan.map(p -> p.proxy().id()).orElse(null));
    m.put("proxyAwait", plan.map(Plan::proxyAwait).orElse(false));
    m.put("ipv6", plan.map(Plan::ipv6).orElse(false));
    m.put("candidateNodes", candidateNodes);
    m.put("candidateCount", candidateCount);
    m.put(
        "nodeConstraint",
        plan.map(Plan::nodeConstraint).map(Decision::constraintJson).orElse(null));
    m.put("warnings", warnings);
    m.put("trace", trace.stream().map(TraceStep::toString).toList());
    m.put("overrides", overrides.applied().stream().map(Decision::overrideJson).toList());
    return m;
  }

  private static Map<String, Object> constraintJson(NodeConstraint c) {
    List<Map<String, Object>> exprs = new ArrayList<>();
    for (NodeRequirement r : c.matchExpressions()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("key", r.key());
      e.put("operator", r.operator());
      e.put("values", r.values());
      exprs.add(e);
    }
    return Map.of("matchExpressions", exprs);
  }
}
