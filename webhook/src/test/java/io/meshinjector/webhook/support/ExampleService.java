package io.meshinjector.webhook.support;

import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.http.AdmissionCodec;
import io.meshinjector.webhook.http.AdmissionService;
import io.meshinjector.webhook.http.PodLimits;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.mutation.InjectionPipeline;
import io.meshinjector.webhook.mutation.Mutators;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;

/** The admission service of the default config over the README's example cluster, no server. */
public final class ExampleService {
  private ExampleService() {}

  public static AdmissionService withMaxRequestBytes(int maxRequestBytes) {
    var config = ConfigLoader.defaults();
    InMemoryClusterView view =
        ClusterFiles.load(config.engine().capabilities(), List.of(Reviews.example("cluster.yaml")));
    AdmissionCodec codec = new AdmissionCodec(100, 1 << 20);
    return new AdmissionService(
        codec,
        new InjectionPipeline(
            new RuleEngine(config.engine(), Clock.systemUTC()),
            Mutators.forConfig(config),
            codec.mapper()),
        () -> view,
        new AdmissionMetrics(new SimpleMeterRegistry()),
        maxRequestBytes,
        PodLimits.from(config));
  }
}
