package io.meshinjector.webhook.support;

import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.admission.AdmissionCodec;
import io.meshinjector.webhook.admission.InjectionPipeline;
import io.meshinjector.webhook.admission.Mutators;
import io.meshinjector.webhook.admission.PodAdmission;
import io.meshinjector.webhook.admission.PodValidation;
import io.meshinjector.webhook.admission.Staleness;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import io.meshinjector.webhook.settings.PodLimits;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;

/** The admission endpoint of the default config, wired as serve wires it, with no server. */
public final class ExampleService {
  private static final MeshConfig CONFIG = ConfigLoader.defaults();

  private ExampleService() {}

  /** Over the README's example cluster. */
  public static AdmissionEndpoint withMaxRequestBytes(int maxRequestBytes) {
    ClusterView view =
        ClusterFiles.load(CONFIG.engine().capabilities(), List.of(Reviews.example("cluster.yaml")));
    return of(
        new AdmissionCodec(100, 1 << 20),
        () -> view,
        new SimpleMeterRegistry(),
        maxRequestBytes,
        PodLimits.from(CONFIG));
  }

  public static AdmissionEndpoint of(
      AdmissionCodec codec,
      Supplier<ClusterView> view,
      MeterRegistry registry,
      int maxRequestBytes,
      PodLimits podLimits) {
    AdmissionMetrics metrics = new AdmissionMetrics(registry);
    PodAdmission admission =
        new PodAdmission(
            codec,
            new PodValidation(podLimits),
            new InjectionPipeline(
                new RuleEngine(CONFIG.engine(), Clock.systemUTC()), Mutators.forConfig(CONFIG)),
            view,
            metrics,
            Staleness.never());
    return new AdmissionEndpoint(codec, admission, metrics, maxRequestBytes);
  }
}
