package io.meshinjector.webhook.metrics;

import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.Plan;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The webhook's Prometheus series: admission latency, decisions by path/mode/placement/outcome,
 * refusals by reason code, run-to-completion pods by the rule that met them, and errors by type.
 * Label values come from enums, so the series stay few whatever the pods look like.
 */
public final class AdmissionMetrics {
  static final String LATENCY = "mesh_injector_admission";
  static final String DECISIONS = "mesh_injector_decisions";
  static final String REFUSALS = "mesh_injector_refusals";
  static final String ERRORS = "mesh_injector_errors";
  static final String COMPLETIONS = "mesh_injector_run_to_completion";

  private final MeterRegistry registry;
  // one per result, built once: a builder, its tags and the registry's lookup on every request
  // were allocation on the hot path for the same four timers
  private final Map<String, Timer> latencies = new ConcurrentHashMap<>(8);

  public AdmissionMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** One answered request; {@code result} is allowed, patched, refused or failed. */
  public void latency(String result, Duration elapsed) {
    latencies.computeIfAbsent(result, this::latencyTimer).record(elapsed);
  }

  private Timer latencyTimer(String result) {
    return Timer.builder(LATENCY)
        .description("Time to answer one AdmissionReview")
        .tag("result", result)
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofSeconds(10))
        .register(registry);
  }

  public void decision(Decision decision) {
    Plan plan = decision.plan().orElse(null);
    Counter.builder(DECISIONS)
        .description(
            "Admission decisions by redirect path, iptables mode, proxy placement and outcome")
        .tag("path", plan == null ? "none" : plan.path().redirect().id())
        .tag(
            "mode",
            plan == null
                ? "none"
                : java.util.Optional.ofNullable(plan.path().mode())
                    .map(IptablesMode::id)
                    .orElse("none"))
        .tag("placement", plan == null ? "none" : plan.proxy().id())
        .tag("outcome", decision.outcomeCode())
        .register(registry)
        .increment();
    // only pods that run to completion and reached the rule: how their proxy was made to end
    decision
        .completionRule()
        .ifPresent(
            rule ->
                Counter.builder(COMPLETIONS)
                    .description(
                        "Pods that run to completion, by how the engine met their need for a"
                            + " proxy that ends with the app")
                    .tag("rule", rule.code())
                    .register(registry)
                    .increment());
    if (decision.outcome() instanceof Outcome.Refuse refuse) {
      refusal(refuse.reason().code());
    }
  }

  /**
   * One refused pod, by reason code: the engine's, or {@code unknown-revision} for a pod that names
   * a revision or tag no release serves (refused before any decision).
   */
  public void refusal(String reason) {
    Counter.builder(REFUSALS)
        .description("Refused pods by reason code")
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  /** A request that got no admission: bad-request, too-large, unsupported-media-type, internal. */
  public void error(String type) {
    Counter.builder(ERRORS)
        .description("Requests answered with an HTTP error, by type")
        .tag("type", type)
        .register(registry)
        .increment();
  }
}
