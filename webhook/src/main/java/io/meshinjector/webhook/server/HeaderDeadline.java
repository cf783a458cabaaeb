package io.meshinjector.webhook.server;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new connection must finish its TLS handshake and send its first request's headers within the
 * header timeout, or it is closed: a client that connects and then trickles or says nothing holds
 * no connection for longer than that. Reactor Netty's idle timeout alone would let a client that
 * sends one byte now and then keep it open.
 */
final class HeaderDeadline {
  private static final Logger LOG = LoggerFactory.getLogger(HeaderDeadline.class);
  private static final AttributeKey<ScheduledFuture<?>> DEADLINE =
      AttributeKey.valueOf(HeaderDeadline.class, "deadline");

  private final Duration timeout;

  HeaderDeadline(Duration timeout) {
    this.timeout = timeout;
  }

  /** Called as a connection is accepted. */
  void arm(Channel connection) {
    ScheduledFuture<?> deadline =
        connection
            .eventLoop()
            .schedule(() -> expire(connection), timeout.toMillis(), TimeUnit.MILLISECONDS);
    connection.attr(DEADLINE).set(deadline);
    connection.closeFuture().addListener(f -> deadline.cancel(false));
  }

  /** Called when a request's headers have arrived, on the connection or on one of its streams. */
  void met(Channel requestChannel) {
    Channel connection =
        requestChannel instanceof Http2StreamChannel ? requestChannel.parent() : requestChannel;
    ScheduledFuture<?> deadline = connection.attr(DEADLINE).getAndSet(null);
    if (deadline != null) {
      deadline.cancel(false);
    }
  }

  private static void expire(Channel connection) {
    if (connection.isActive()) {
      LOG.debug(
          "closing {}: no TLS handshake and request headers within the header timeout",
          connection.remoteAddress());
      connection.close();
    }
  }
}
