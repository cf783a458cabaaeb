package io.meshinjector.webhook.server;

import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.cluster.ClusterConnection;
import io.meshinjector.webhook.logging.AsyncConsole;
import io.meshinjector.webhook.settings.ClusterSettings;
import io.meshinjector.webhook.settings.ServerSettings;
import io.meshinjector.webhook.settings.WarmupSettings;
import io.meshinjector.webhook.settings.WebhookSettings;
import io.meshinjector.webhook.tls.TlsConfiguration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.LoggerFactory;
import org.springframework.aot.AotDetector;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.aot.AotApplicationContextInitializer;

/** Starts the {@code serve} application from already-validated options. */
public final class WebhookServer {
  /**
   * Every log line of a request carries its UID, namespace and pod (see RequestContext). A stack
   * trace stays on its event's line, its own line breaks shown as " | ", because a trace printed
   * over many lines leaves all but the first without the request, and log collectors split it.
   * Forty frames keep the line well under the 16 KiB at which container runtimes split lines.
   */
  static final String TEXT_PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %5p [%t] %logger{30}"
          + " uid=%X{uid:--} namespace=%X{namespace:--} pod=%X{pod:--} : %m"
          + "%replace(%replace(%wEx{40}){'\\s*[\\r\\n]+\\s*', ' | '}){' \\| $', ''}%n";

  static final List<String> UNUSED_AUTO_CONFIGURATION =
      List.of(
          "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration",
          "org.springframework.boot.webflux.autoconfigure.WebFluxObservationAutoConfiguration",
          "org.springframework.boot.webflux.autoconfigure.ReactiveMultipartAutoConfiguration",
          "org.springframework.boot.webflux.autoconfigure.WebSessionIdResolverAutoConfiguration",
          "org.springframework.boot.webflux.autoconfigure.error.ErrorWebFluxAutoConfiguration",
          "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration",
          "org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration",
          "org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration",
          "org.springframework.boot.micrometer.observation.autoconfigure"
              + ".ScheduledTasksObservationAutoConfiguration",
          "org.springframework.boot.micrometer.metrics.autoconfigure.task"
              + ".TaskExecutorMetricsAutoConfiguration",
          "org.springframework.boot.health.autoconfigure.application"
              + ".DiskSpaceHealthContributorAutoConfiguration",
          "org.springframework.boot.health.autoconfigure.actuate.endpoint"
              + ".AvailabilityProbesAutoConfiguration");

  private WebhookServer() {}

  /**
   * What {@code serve} runs with.
   *
   * @param tlsCert PEM certificate chain, reloaded when it changes
   * @param tlsKey PEM private key (PKCS#8), reloaded when it changes
   */
  public record Options(
      MeshConfig config,
      WebhookSettings settings,
      ClusterConnection cluster,
      Path tlsCert,
      Path tlsKey) {
    public Options {
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(settings, "settings");
      Objects.requireNonNull(cluster, "cluster");
      Objects.requireNonNull(tlsCert, "tlsCert");
      Objects.requireNonNull(tlsKey, "tlsKey");
    }

    /** A view that never changes (files, tests). */
    public Options(
        MeshConfig config, WebhookSettings settings, ClusterView view, Path tlsCert, Path tlsKey) {
      this(config, settings, ClusterConnection.fixed(view, "a fixed view"), tlsCert, tlsKey);
    }
  }

  public static ConfigurableApplicationContext start(Options options) {
    SpringApplication app = new SpringApplication(WebhookApplication.class);
    app.setWebApplicationType(WebApplicationType.REACTIVE);
    if (AotDetector.useGeneratedArtifacts()) {
      // -Dspring.aot.enabled=true: the bean definitions generated at build time from
      // WebhookApplication.main. Named here because Spring would look for them by the class whose
      // main method is running, which is MeshInjector's picocli entry point
      app.addInitializers(
          AotApplicationContextInitializer.forInitializerClasses(
              WebhookApplication.class.getName() + "__ApplicationContextInitializer"));
    }
    app.addInitializers(
        ctx -> {
          var beans = ctx.getBeanFactory();
          beans.registerSingleton("meshConfig", options.config());
          beans.registerSingleton("webhookSettings", options.settings());
          beans.registerSingleton("clusterConnection", options.cluster());
          beans.registerSingleton("clusterView", options.cluster().view());
          beans.registerSingleton("viewHealth", options.cluster().health());
          beans.registerSingleton("clusterSettings", ClusterSettings.from(options.config()));
          // logging is set up by now (environment prepared); request threads only queue lines
          AsyncConsole.install(LoggerFactory.getILoggerFactory());
          DroppedErrors.install();
        });
    // as command-line arguments: they outrank application.properties and the environment, and
    // they are in place before the logging system starts
    return app.run(properties(options).toArray(String[]::new));
  }

  static List<String> properties(Options options) {
    WebhookSettings s = options.settings();
    List<String> p = new ArrayList<>();
    p.add("--spring.main.banner-mode=off");
    p.add("--spring.application.name=mesh-injector");
    p.add("--spring.jmx.enabled=false");
    // what the HTTPS port's own HttpHandler leaves unused (WebFlux's dispatcher, error pages,
    // multipart, sessions, request observations) and what no bean here asks for (AOP, task
    // executors and schedulers, disk-space health): fewer beans to create at start-up
    p.add("--spring.autoconfigure.exclude=" + String.join(",", UNUSED_AUTO_CONFIGURATION));
    p.add("--server.port=" + s.port());
    p.add("--server.http2.enabled=true");
    // the plain management port speaks h2c too; Reactor Netty answers an upgrade request whose
    // body is over this with 413 rather than routing it
    p.add("--server.netty.h2c-max-content-length=" + s.maxRequestBytes());
    p.add("--server.ssl.bundle=webhook");
    // on the bundle: with server.ssl.bundle set, the server takes protocols and ciphers from the
    // bundle's options, not from server.ssl.*
    p.add(
        "--spring.ssl.bundle.pem.webhook.options.enabled-protocols="
            + String.join(",", TlsConfiguration.PROTOCOLS));
    p.add(
        "--spring.ssl.bundle.pem.webhook.options.ciphers="
            + String.join(",", TlsConfiguration.CIPHERS));
    p.add("--spring.ssl.bundle.pem.webhook.keystore.certificate=file:" + options.tlsCert());
    p.add("--spring.ssl.bundle.pem.webhook.keystore.private-key=file:" + options.tlsKey());
    p.add("--spring.ssl.bundle.pem.webhook.reload-on-update=true");
    // a tls.key already replaced while tls.crt is not yet is refused, so the old pair stays served
    p.add("--spring.ssl.bundle.pem.webhook.keystore.verify-keys=true");
    p.add(
        "--spring.ssl.bundle.watch.file.quiet-period="
            + s.tlsReloadQuietPeriod().toMillis()
            + "ms");
    ServerSettings server = ServerSettings.from(options.config());
    // read here so that a wrong value stops the start before the server is up
    WarmupSettings.from(options.config());
    // SIGTERM: ShutdownDrain keeps serving for the drain period, then requests in flight finish
    p.add("--server.shutdown=graceful");
    p.add(
        "--spring.lifecycle.timeout-per-shutdown-phase="
            + server.shutdownTimeout().toMillis()
            + "ms");
    // the rest of webhook.server (timeouts, connection cap, event loops): NettyLimits
    p.add("--management.server.port=" + s.metricsPort());
    p.add("--management.server.ssl.enabled=false");
    p.add("--management.endpoints.web.base-path=/");
    p.add("--management.endpoints.web.exposure.include=prometheus");
    p.add("--management.endpoints.web.path-mapping.prometheus=metrics");
    // fabric8 logs every failed list or watch with its stack trace; ClusterInformers says it in
    // one line instead. And it warns on every use of a v1alpha1 resource: NodeCapability is one.
    p.add("--logging.level.io.fabric8.kubernetes.client.informers.impl.cache.Reflector=ERROR");
    p.add("--logging.level.io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils=ERROR");
    p.add("--logging.pattern.console=" + TEXT_PATTERN);
    if (s.logFormat().springFormat() != null) {
      p.add("--logging.structured.format.console=" + s.logFormat().springFormat());
    }
    return p;
  }
}
