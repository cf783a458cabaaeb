package io.meshinjector.webhook.logging;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.ILoggerFactory;

/**
 * Moves the root logger's appenders (Spring Boot's console, text or JSON) behind a logback {@link
 * AsyncAppender}, so a request thread only queues its line and a slow reader of stdout (a container
 * runtime's full log pipe) cannot stall admissions. The request's MDC (UID, namespace, pod) is
 * copied into the event when it is queued, so the lines still carry it.
 *
 * <p>When the queue is full the line is dropped rather than the request blocked: with {@code
 * failurePolicy: Fail}, a webhook waiting on its log blocks every pod creation in the cluster.
 */
public final class AsyncConsole {
  static final String NAME = "ASYNC-CONSOLE";
  static final int QUEUE_SIZE = 8192;

  private AsyncConsole() {}

  /** Wraps the root's appenders; does nothing when they are wrapped already or not logback's. */
  public static void install(ILoggerFactory factory) {
    if (!(factory instanceof LoggerContext context)) {
      return;
    }
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    if (root.getAppender(NAME) != null) {
      return;
    }
    List<Appender<ILoggingEvent>> appenders = new ArrayList<>();
    root.iteratorForAppenders().forEachRemaining(appenders::add);
    if (appenders.isEmpty()) {
      return;
    }
    AsyncAppender async = new AsyncAppender();
    async.setName(NAME);
    async.setContext(context);
    async.setQueueSize(QUEUE_SIZE);
    // every level is kept until the queue is full, not only WARN and above past 80 %
    async.setDiscardingThreshold(0);
    async.setNeverBlock(true);
    async.setIncludeCallerData(false);
    appenders.forEach(async::addAppender);
    async.start();
    root.addAppender(async);
    appenders.forEach(root::detachAppender);
  }
}
