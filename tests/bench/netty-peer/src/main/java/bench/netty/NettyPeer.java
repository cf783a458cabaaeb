package bench.netty;

import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.admission.AdmissionCodec;
import io.meshinjector.webhook.admission.AdmissionReply;
import io.meshinjector.webhook.admission.Staleness;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import io.meshinjector.webhook.server.RequestBody;
import io.meshinjector.webhook.logging.AsyncConsole;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.Http2SslContextSpec;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * mesh-injector's admission code behind Reactor Netty, for the benchmark only: the AdmissionEndpoint
 * that {@code serve} builds (the default configuration's limits, a fixed view from a cluster file),
 * answering {@code POST /mutate} over TLS with HTTP/1.1 and HTTP/2 negotiated by ALPN, and {@code
 * GET /readyz} and {@code /healthz}.
 *
 * <p>Arguments: {@code --port=N --tls-crt=FILE --tls-key=FILE --cluster=FILE [--ssl=openssl|jdk]
 * [--canned=FILE]}; {@code openssl} (the default) is BoringSSL from netty-tcnative-boringssl-static,
 * {@code jdk} is the JDK's JSSE. With {@code --canned}, {@code /mutate} reads the whole request and
 * answers the file's bytes without running any admission code: what this JVM, Reactor Netty and
 * the TLS stack reach on this machine before a single byte of admission work, the Java
 * counterpart of nginx's canned answer.
 *
 * <p>The admission runs on the event loop that read the request, as in {@code serve}, which runs the
 * same on Reactor Netty under Spring Boot; this peer shows what Spring's layers cost.
 */
public final class NettyPeer {
  private static final Logger LOG = LoggerFactory.getLogger(NettyPeer.class);
  private static final byte[] OK = "ok\n".getBytes(StandardCharsets.UTF_8);

  private final AdmissionEndpoint service;
  private final byte[] canned;

  private NettyPeer(AdmissionEndpoint service, byte[] canned) {
    this.service = service;
    this.canned = canned;
  }

  public static void main(String[] args) {
    Map<String, String> options = options(args);
    int port = Integer.parseInt(required(options, "port"));
    File crt = new File(required(options, "tls-crt"));
    File key = new File(required(options, "tls-key"));
    Path cluster = Path.of(required(options, "cluster"));
    SslProvider provider = provider(options.getOrDefault("ssl", "openssl"));
    // as serve: a request thread only queues its log line ("injected: ..." on every admission)
    AsyncConsole.install(LoggerFactory.getILoggerFactory());

    String cannedFile = options.get("canned");
    NettyPeer peer =
        cannedFile == null
            ? new NettyPeer(service(cluster), null)
            : new NettyPeer(null, readAll(Path.of(cannedFile)));
    Http2SslContextSpec tls =
        Http2SslContextSpec.forServer(crt, key).configure(builder -> builder.sslProvider(provider));
    DisposableServer server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(port)
            .protocol(HttpProtocol.HTTP11, HttpProtocol.H2)
            .secure(spec -> spec.sslContext(tls))
            .route(
                routes ->
                    routes
                        .post("/mutate", peer::mutate)
                        .get("/readyz", NettyPeer::ok)
                        .get("/healthz", NettyPeer::ok))
            .bindNow();
    LOG.info(
        "listening on https://127.0.0.1:{} (TLS: {}{}){}",
        server.port(),
        provider,
        provider == SslProvider.OPENSSL ? ", " + OpenSsl.versionString() : "",
        cannedFile == null ? "" : "; canned answer from " + cannedFile);
    server.onDispose().block();
  }

  /** The AdmissionEndpoint of {@code serve}, as WebhookApplication wires it, for a cluster file. */
  static AdmissionEndpoint service(Path cluster) {
    MeshConfig config = ConfigLoader.defaults();
    InMemoryClusterView view = ClusterFiles.load(config.engine().capabilities(), List.of(cluster));
    // a file view is never stale: serve's Staleness over ViewHealth.fixed() never warns either
    return AdmissionEndpoint.from(
        config,
        Clock.systemUTC(),
        () -> view,
        new AdmissionMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)),
        Staleness.never());
  }

  private Mono<Void> mutate(HttpServerRequest request, HttpServerResponse response) {
    String contentType = request.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE);
    return request
        .receive()
        .aggregate()
        .asByteArray()
        .defaultIfEmpty(new byte[0])
        .flatMap(bytes -> answer(response, contentType, bytes));
  }

  private Mono<Void> answer(HttpServerResponse response, String contentType, byte[] bytes) {
    if (canned != null) {
      return send(response, 200, canned, canned.length);
    }
    int status;
    byte[] body;
    int length;
    try {
      // the endpoint refuses a body over the limit, as serve's does
      AdmissionReply reply = service.answer(contentType, RequestBody.of(bytes));
      AdmissionCodec.Encoded encoded = service.encode(reply);
      status = reply.httpStatus();
      body = encoded.bytes();
      length = encoded.length();
    } catch (RuntimeException e) {
      LOG.warn("cannot answer a request: {}", e.toString());
      status = 500;
      AdmissionCodec.Encoded lastResort = AdmissionCodec.lastResort();
      body = lastResort.bytes();
      length = lastResort.length();
    }
    return send(response, status, body, length);
  }

  private static Mono<Void> send(
      HttpServerResponse response, int status, byte[] body, int length) {
    // copied: the codec's array is its thread's buffer, reused by the next answer
    ByteBuf out = response.alloc().buffer(length).writeBytes(body, 0, length);
    return response
        .status(status)
        .header(HttpHeaderNames.CONTENT_TYPE, "application/json")
        .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(length))
        .send(Mono.just(out))
        .then();
  }

  private static Mono<Void> ok(HttpServerRequest request, HttpServerResponse response) {
    return response
        .header(HttpHeaderNames.CONTENT_TYPE, "text/plain")
        .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(OK.length))
        .sendByteArray(Mono.just(OK))
        .then();
  }

  private static SslProvider provider(String name) {
    switch (name) {
      case "openssl":
        if (!OpenSsl.isAvailable()) {
          throw new IllegalStateException(
              "--ssl=openssl: netty-tcnative is not usable", OpenSsl.unavailabilityCause());
        }
        return SslProvider.OPENSSL;
      case "jdk":
        return SslProvider.JDK;
      default:
        throw new IllegalArgumentException("--ssl must be openssl or jdk, not " + name);
    }
  }

  private static byte[] readAll(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("--canned=" + file + ": " + e.getMessage(), e);
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("arguments are --name=value, not " + arg);
      }
      options.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    return options;
  }

  private static String required(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("--" + name + "= is required");
    }
    return value;
  }
}
