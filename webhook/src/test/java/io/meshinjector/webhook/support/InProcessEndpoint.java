package io.meshinjector.webhook.support;

import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.admission.Staleness;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;

/**
 * The admission endpoint {@code serve} builds for a config (its limits, engine and templates), over
 * a fixed view, in-process: what a request meets once the server has read its body.
 */
public final class InProcessEndpoint {
  private InProcessEndpoint() {}

  /** Over the README's example cluster, counted in a registry of its own. */
  public static AdmissionEndpoint overExampleCluster(MeshConfig config) {
    ClusterView view =
        ClusterFiles.load(config.engine().capabilities(), List.of(Reviews.example("cluster.yaml")));
    return of(config, () -> view, new SimpleMeterRegistry());
  }

  public static AdmissionEndpoint of(
      MeshConfig config, Supplier<ClusterView> view, MeterRegistry registry) {
    return AdmissionEndpoint.from(
        config, Clock.systemUTC(), view, new AdmissionMetrics(registry), Staleness.never());
  }
}
