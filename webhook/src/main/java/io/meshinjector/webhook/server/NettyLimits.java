package io.meshinjector.webhook.server;

import io.meshinjector.webhook.settings.ServerSettings;
import io.netty.channel.ChannelOption;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerState;

/**
 * The limits of {@code webhook.server:} on Reactor Netty, which Spring Boot has no properties for:
 * the header deadline, the body read timeout, the idle timeout, the connection cap, the accept
 * queue and HTTP/2's stream limits. The event loops are the ReactorResourceFactory's (see
 * WebhookApplication), which Spring Boot sets on the server after the customizers run.
 */
final class NettyLimits implements NettyServerCustomizer {
  /** Streams one HTTP/2 connection may have open at once: RFC 9113 recommends no fewer than 100. */
  static final int MAX_CONCURRENT_STREAMS = 100;

  private final ServerSettings settings;

  NettyLimits(ServerSettings settings) {
    this.settings = settings;
  }

  /** Worker threads: one per core, as an event loop never blocks, and at most maxEventLoops. */
  static int workers(ServerSettings settings) {
    return Math.max(
        1, Math.min(settings.maxEventLoops(), Runtime.getRuntime().availableProcessors()));
  }

  @Override
  public HttpServer apply(HttpServer server) {
    // per server: the management port, if it is customized too, keeps its own count
    ConnectionCap cap = new ConnectionCap(settings.maxConnections());
    HeaderDeadline deadline = new HeaderDeadline(settings.headerTimeout());
    return server
        .option(ChannelOption.SO_BACKLOG, settings.acceptBacklog())
        .doOnChannelInit(
            (observer, channel, remote) -> {
              cap.opened(channel);
              deadline.arm(channel);
            })
        .childObserve(
            (connection, state) -> {
              if (state == HttpServerState.REQUEST_RECEIVED) {
                deadline.met(connection.channel());
              }
            })
        // between two reads of a request body; a stalled body fails its read and frees the loop
        .readTimeout(settings.readTimeout())
        .idleTimeout(settings.idleTimeout())
        .http2Settings(h2 -> h2.maxConcurrentStreams(MAX_CONCURRENT_STREAMS));
  }
}
