package io.meshinjector.webhook.server;

import io.netty.handler.timeout.TimeoutException;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Hooks;
import reactor.netty.channel.AbortedException;

/**
 * Errors Reactor could deliver to no one. A connection that times out or breaks reaches both the
 * request's body (which the handler answers from) and the connection's own operations, which have
 * finished by then; Reactor's default logs that second delivery at ERROR with no request named. A
 * client's timeout or reset is not the server's error: those go to DEBUG, anything else to WARN.
 */
final class DroppedErrors {
  private static final Logger LOG = LoggerFactory.getLogger(DroppedErrors.class);

  private DroppedErrors() {}

  static void install() {
    Hooks.onErrorDropped(DroppedErrors::log);
  }

  static boolean fromTheConnection(Throwable e) {
    return e instanceof TimeoutException
        || e instanceof IOException
        || e instanceof AbortedException;
  }

  private static void log(Throwable e) {
    if (fromTheConnection(e)) {
      LOG.debug("a connection ended after its request was answered: {}", e.toString());
    } else {
      LOG.warn("an error after its request was answered", e);
    }
  }
}
