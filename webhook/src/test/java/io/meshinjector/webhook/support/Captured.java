package io.meshinjector.webhook.support;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.AppenderAttachable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/**
 * The events one logger logs while it is attached, each with the text the running application's
 * console appender makes of it: the pattern and converters as served, not a copy of them.
 */
public final class Captured extends AppenderBase<ILoggingEvent> implements AutoCloseable {
  /** An event and its console text. */
  public record Line(ILoggingEvent event, String text) {}

  private final Logger logger;
  private final Encoder<ILoggingEvent> console;
  private final ConcurrentLinkedQueue<Line> lines = new ConcurrentLinkedQueue<>();

  private Captured(Logger logger, Encoder<ILoggingEvent> console) {
    this.logger = logger;
    this.console = console;
  }

  public static Captured on(Class<?> type) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Encoder<ILoggingEvent> console = null;
    for (var it = root.iteratorForAppenders(); it.hasNext(); ) {
      Appender<ILoggingEvent> appender = it.next();
      if (appender instanceof AppenderAttachable<?> queued) {
        // the console sits behind the queued appender (AsyncConsole) in `serve`
        for (var inner = queued.iteratorForAppenders(); inner.hasNext(); ) {
          if (inner.next() instanceof OutputStreamAppender<?> out) {
            console = encoder(out);
          }
        }
      } else if (appender instanceof OutputStreamAppender<ILoggingEvent> out) {
        console = out.getEncoder();
      }
    }
    if (console == null) {
      throw new IllegalStateException("no console appender: the application did not start");
    }
    Captured captured = new Captured(context.getLogger(type), console);
    captured.setContext(context);
    captured.start();
    captured.logger.addAppender(captured);
    return captured;
  }

  @SuppressWarnings("unchecked")
  private static Encoder<ILoggingEvent> encoder(OutputStreamAppender<?> out) {
    // the root logger's appenders take ILoggingEvents, and so do their encoders
    return (Encoder<ILoggingEvent>) out.getEncoder();
  }

  public List<Line> lines() {
    return List.copyOf(lines);
  }

  @Override
  protected void append(ILoggingEvent event) {
    // on the logging thread, while its MDC is the request's
    event.prepareForDeferredProcessing();
    lines.add(new Line(event, new String(console.encode(event), StandardCharsets.UTF_8)));
  }

  @Override
  public void close() {
    logger.detachAppender(this);
    stop();
  }
}
