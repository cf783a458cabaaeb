package io.meshinjector.webhook.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.ILoggerFactory;

/**
 * Moves the root logger's appenders (Spring Boot's console, text or JSON) behind a {@link
 * BatchingAppender}, so a request thread only queues its line and a slow reader of stdout (a
 * container runtime's full log pipe) cannot stall admissions. The request's MDC (UID, namespace,
 * pod) is copied into the event when it is queued, so the lines still carry it.
 *
 * <p>When the queue is full the line is dropped rather than the request blocked: with {@code
 * failurePolicy: Fail}, a webhook waiting on its log blocks every pod creation in the cluster. The
 * writer then logs how many lines were dropped.
 */
public final class AsyncConsole {
  static final String NAME = "ASYNC-CONSOLE";
  static final int QUEUE_SIZE = 8192;

  /** The longest a line waits to be written: the writer wakes 100 times a second, busy or not. */
  static final Duration FLUSH_INTERVAL = Duration.ofMillis(10);

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
    BatchingAppender queued = new BatchingAppender(QUEUE_SIZE, FLUSH_INTERVAL);
    queued.setName(NAME);
    queued.setContext(context);
    appenders.forEach(queued::addAppender);
    queued.start();
    root.addAppender(queued);
    appenders.forEach(root::detachAppender);
  }
}
