package io.meshinjector.webhook.metrics;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.check.NodePaths;
import io.meshinjector.engine.check.ProbeCoverage;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.rules.Viability;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The nodes as the alerts need them: how many hold each effective verdict, how many have no working
 * redirect path, and how fresh the probe's reports are. Computed from the view's node index (per
 * capability class, so cheap at 5,000 nodes) at most once per {@link #REFRESH}, whatever the number
 * of gauges or scrapers.
 */
public final class NodeHealthMetrics {
  static final String BY_VERDICT = "mesh_injector_nodes_by_verdict";
  static final String WITHOUT_PATH = "mesh_injector_nodes_without_path";
  static final String PROBE_REPORTS = "mesh_injector_probe_reports";
  static final String OLDEST_REPORT = "mesh_injector_probe_report_oldest_age_seconds";
  static final Duration REFRESH = Duration.ofSeconds(5);

  record Snapshot(
      Map<CapabilityKey, Map<Verdict, Integer>> verdicts,
      int withoutPath,
      ProbeCoverage coverage,
      Instant at) {}

  private final Supplier<ClusterView> view;
  private final Supplier<Map<String, Instant>> reports;
  private final MeshConfig config;
  private final Viability viability;
  private final Clock clock;
  private volatile Snapshot last;

  NodeHealthMetrics(
      Supplier<ClusterView> view,
      Supplier<Map<String, Instant>> reports,
      MeshConfig config,
      Clock clock) {
    this.view = view;
    this.reports = reports;
    this.config = config;
    this.viability = new Viability(config.engine().capabilities());
    this.clock = clock;
  }

  public static void register(
      MeterRegistry registry,
      Supplier<ClusterView> view,
      Supplier<Map<String, Instant>> reports,
      MeshConfig config,
      Clock clock) {
    NodeHealthMetrics m = new NodeHealthMetrics(view, reports, config, clock);
    for (CapabilityKey key : CapabilityKey.values()) {
      for (Verdict verdict : key.verdicts()) {
        Gauge.builder(BY_VERDICT, m, x -> x.snapshot().verdicts().get(key).get(verdict))
            .description(
                "Nodes by effective capability verdict (after overrides, probe, live state and"
                    + " inference), as published in the capability.mesh-injector.io labels")
            .tag("key", key.id())
            .tag("verdict", verdict.id())
            .register(registry);
      }
    }
    Gauge.builder(WITHOUT_PATH, m, x -> x.snapshot().withoutPath())
        .description(
            "Nodes where no redirect path of policy.preference works: an injected pod cannot start"
                + " there")
        .register(registry);
    for (String state : new String[] {"fresh", "stale", "missing"}) {
      Gauge.builder(PROBE_REPORTS, m, x -> x.reports(state))
          .description(
              "Nodes by the state of their probe report: fresh (within capabilities.probeTtl),"
                  + " stale (older: its verdicts count as unknown) or missing")
          .tag("state", state)
          .register(registry);
    }
    Gauge.builder(
            OLDEST_REPORT,
            m,
            x ->
                x.snapshot().coverage().oldest().map(d -> d.toMillis() / 1000.0).orElse(Double.NaN))
        .description("Age of the oldest probe report of a current node; NaN when there is none")
        .baseUnit("seconds")
        .register(registry);
  }

  double reports(String state) {
    ProbeCoverage c = snapshot().coverage();
    return switch (state) {
      case "fresh" -> c.fresh();
      case "stale" -> c.stale().size();
      default -> c.missing().size();
    };
  }

  Snapshot snapshot() {
    Instant now = clock.instant();
    Snapshot s = last;
    if (s != null && now.isBefore(s.at().plus(REFRESH))) {
      return s;
    }
    NodeIndex index = view.get().nodes(now);
    s =
        new Snapshot(
            NodePaths.verdictCounts(index),
            NodePaths.countWithoutPath(index, viability, config.engine().policy().preference()),
            ProbeCoverage.assess(
                index.nodeNames(), reports.get(), now, config.engine().capabilities().probeTtl()),
            now);
    last = s;
    return s;
  }
}
