package io.meshinjector.webhook.probe;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The probe's plain-HTTP {@code GET /metrics} (Prometheus text), for the repair's counter. Reactor
 * Netty, which the image already carries for the admission server, rather than a second HTTP stack:
 * the probe stays a picocli program without Spring.
 */
public final class ProbeMetricsServer implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final DisposableServer server;

  private ProbeMetricsServer(PrometheusMeterRegistry registry, DisposableServer server) {
    this.registry = registry;
    this.server = server;
  }

  /** Serves {@code registry} on {@code port} (0: any free port) on every address. */
  public static ProbeMetricsServer start(int port) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    DisposableServer server =
        HttpServer.create()
            .host("0.0.0.0")
            .port(port)
            .route(
                routes ->
                    routes.get(
                        "/metrics",
                        (req, res) ->
                            res.header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                                .sendString(Mono.fromSupplier(registry::scrape))))
            .bindNow();
    return new ProbeMetricsServer(registry, server);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    server.disposeNow();
  }
}
