package io.meshinjector.webhook.support;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.meshinjector.webhook.admission.PodAdmission;
import io.meshinjector.webhook.logging.RequestContext;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/**
 * What a running {@code serve} logged, read back by a test: which request UIDs the admission
 * service answered, and the lines in which Netty says it ended an HTTP/2 connection with an error
 * code (a GOAWAY other than NO_ERROR, at DEBUG, so the test must turn that level on).
 */
public final class ServerLog extends AppenderBase<ILoggingEvent> {
  private static final String HTTP2 = "io.netty.handler.codec.http2";

  /**
   * Netty's wording (Http2ConnectionHandler) for a GOAWAY it sends with an error code; a GOAWAY
   * with NO_ERROR (an idle connection closed) is not logged.
   */
  private static final List<String> CONNECTION_ERRORS =
      List.of("Sent GOAWAY", "Sending GOAWAY failed");

  private final Map<String, Integer> answered = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<String> connectionErrors = new ConcurrentLinkedQueue<>();

  /** Spring reads it at start-up: set it before {@code serve}, clear it after. */
  private static final String HTTP2_LOG_LEVEL = "logging.level." + HTTP2;

  private ServerLog() {}

  /**
   * Makes the next server started in this JVM log at DEBUG when Netty ends an HTTP/2 connection for
   * an error; the package logs little else at that level.
   */
  public static void logHttp2ConnectionErrors() {
    System.setProperty(HTTP2_LOG_LEVEL, "DEBUG");
  }

  public static void stopLoggingHttp2ConnectionErrors() {
    System.clearProperty(HTTP2_LOG_LEVEL);
  }

  public static ServerLog attach() {
    ServerLog log = new ServerLog();
    log.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
    log.start();
    root().addAppender(log);
    return log;
  }

  public void detach() {
    root().detachAppender(this);
    stop();
  }

  /** How many times the admission core or its endpoint answered this request UID. */
  public int answered(String uid) {
    return answered.getOrDefault(uid, 0);
  }

  public List<String> connectionErrors() {
    return List.copyOf(connectionErrors);
  }

  @Override
  protected void append(ILoggingEvent event) {
    String logger = event.getLoggerName();
    if (logger.equals(PodAdmission.class.getName())
        || logger.equals(AdmissionEndpoint.class.getName())) {
      String uid = event.getMDCPropertyMap().get(RequestContext.UID);
      // one line per answered request; "-" is a request whose UID was never read
      if (uid != null && !uid.equals("-")) {
        answered.merge(uid, 1, Integer::sum);
      }
    } else if (logger.startsWith(HTTP2)) {
      String message = event.getFormattedMessage();
      if (CONNECTION_ERRORS.stream().anyMatch(message::contains)) {
        var thrown = event.getThrowableProxy();
        connectionErrors.add(message + (thrown == null ? "" : ": " + thrown.getMessage()));
      }
    }
  }

  private static Logger root() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}
