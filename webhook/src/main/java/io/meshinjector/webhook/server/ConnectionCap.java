package io.meshinjector.webhook.server;

import io.netty.channel.Channel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code max} open connections: at the cap the listening socket stops accepting, so further
 * clients wait in the OS's accept queue ({@code acceptBacklog}) rather than being refused, and it
 * accepts again once a connection closes. The accept loop may take a few more connections in the
 * read that reaches the cap; the cap holds to within that batch.
 */
final class ConnectionCap {
  private final int max;
  private final AtomicInteger open = new AtomicInteger();

  ConnectionCap(int max) {
    this.max = max;
  }

  /** Counts an accepted connection until it closes. */
  void opened(Channel connection) {
    open.incrementAndGet();
    Channel listener = connection.parent();
    adjust(listener);
    connection
        .closeFuture()
        .addListener(
            f -> {
              open.decrementAndGet();
              adjust(listener);
            });
  }

  /**
   * On the listener's own event loop, so that the decisions run in order and the last one reads the
   * count after the last change: a stop and a resume computed on two threads at once cannot leave
   * the listener stopped under the cap.
   */
  private void adjust(Channel listener) {
    if (listener == null) {
      return;
    }
    listener.eventLoop().execute(() -> listener.config().setAutoRead(open.get() < max));
  }
}
