package io.meshinjector.webhook.server;

import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.admission.Staleness;
import io.meshinjector.webhook.cluster.ClusterConnection;
import io.meshinjector.webhook.cluster.ViewHealth;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.metrics.ClusterViewMetrics;
import io.meshinjector.webhook.metrics.NodeHealthMetrics;
import io.meshinjector.webhook.settings.ClusterSettings;
import io.meshinjector.webhook.settings.ServerSettings;
import io.meshinjector.webhook.settings.WarmupSettings;
import io.meshinjector.webhook.settings.WebhookSettings;
import io.meshinjector.webhook.tls.TlsConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.server.reactive.HttpHandler;
import reactor.netty.resources.LoopResources;

/**
 * The {@code serve} application. Beans are declared, not scanned: the CLI classes share the package
 * tree and must not become beans, and a small context starts faster.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(TlsConfiguration.class)
public class WebhookApplication {

  /**
   * Spring AOT's build-time entry point (the webhook module's {@code process-aot} step), never run
   * by {@code serve}: it starts the context as {@link WebhookServer#start} does, with the embedded
   * default config and an empty view, and Spring abandons the start once the bean definitions are
   * loaded, before any bean is created or the TLS files are read. What {@code serve} knows only at
   * run time (the config, the view, ports, TLS files) arrives then as singletons and properties,
   * which the generated bean definitions do not freeze.
   */
  public static void main(String[] args) {
    MeshConfig config = ConfigLoader.defaults();
    WebhookServer.start(
        new WebhookServer.Options(
            config,
            WebhookSettings.from(config),
            InMemoryClusterView.of(config.engine().capabilities(), List.of()),
            Path.of("tls.crt"),
            Path.of("tls.key")));
  }

  @Bean
  AdmissionMetrics admissionMetrics(MeterRegistry registry) {
    return new AdmissionMetrics(registry);
  }

  /**
   * The admission over the cluster connection's view, warning while the view is stale. The view
   * comes in as a bean, which is where the server test puts a failing one.
   */
  @Bean
  AdmissionEndpoint admissionEndpoint(
      MeshConfig config,
      ClusterView view,
      ViewHealth health,
      ClusterSettings clusterSettings,
      AdmissionMetrics metrics) {
    return AdmissionEndpoint.from(
        config,
        Clock.systemUTC(),
        () -> view,
        metrics,
        new Staleness(health::age, clusterSettings.staleAfter()));
  }

  /** Admissions of an example pod in-process, before readiness turns to accepting traffic. */
  @Bean
  Warmup warmup(
      AdmissionEndpoint endpoint, MeshConfig config, ApplicationAvailability availability) {
    return new Warmup(endpoint, config, WarmupSettings.from(config), availability);
  }

  /** Starts the cluster connection's informers and publisher with the server, stops them last. */
  @Bean
  ClusterLifecycle clusterLifecycle(
      ClusterConnection cluster, MeterRegistry registry, MeshConfig config) {
    ClusterViewMetrics.register(registry, cluster.health());
    NodeHealthMetrics.register(
        registry, cluster::view, cluster::probeReportTimes, config, Clock.systemUTC());
    return new ClusterLifecycle(cluster, registry);
  }

  @Bean
  ServerSettings serverSettings(MeshConfig config) {
    return ServerSettings.from(config);
  }

  /**
   * The HTTPS port's handler. Being an HttpHandler bean, it takes the place of WebFlux's dispatcher
   * on that port; the management port keeps its own.
   */
  @Bean
  HttpHandler httpHandler(
      AdmissionEndpoint endpoint, ApplicationAvailability availability, ViewHealth health) {
    return new AdmissionHttpHandler(endpoint, new HealthProbes(availability, health));
  }

  /**
   * The event loops both ports run on: one per core and at most maxEventLoops (the admission runs
   * on them, and never blocks). Closed once the servers have stopped, with no quiet period: the
   * graceful shutdown has already waited for the requests in flight.
   */
  @Bean
  ReactorResourceFactory reactorResourceFactory(ServerSettings settings) {
    ReactorResourceFactory loops = new ReactorResourceFactory();
    loops.setUseGlobalResources(false);
    loops.setLoopResourcesSupplier(
        () -> LoopResources.create("https", 1, NettyLimits.workers(settings), true));
    loops.setShutdownQuietPeriod(Duration.ZERO);
    loops.setShutdownTimeout(Duration.ofSeconds(2));
    return loops;
  }

  @Bean
  NettyLimits nettyLimits(ServerSettings settings) {
    return new NettyLimits(settings);
  }

  @Bean
  ShutdownDrain shutdownDrain(ApplicationEventPublisher events, ServerSettings settings) {
    return new ShutdownDrain(events, settings.drainPeriod());
  }

  @Bean
  ServerPorts serverPorts() {
    return new ServerPorts();
  }
}
