package io.meshinjector.webhook.server;

import org.apache.catalina.connector.Connector;
import org.apache.coyote.UpgradeProtocol;
import org.apache.coyote.http2.Http2Protocol;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;

/**
 * The connector limits Spring Boot has no property for. The header timeout, idle timeout and the
 * connection and thread caps are set through {@code server.tomcat.*} (see WebhookServer); this adds
 * the body read timeout and the same timeouts for HTTP/2, whose streams Tomcat times separately.
 */
final class ConnectorLimits implements TomcatConnectorCustomizer {
  /** Below this average size, a non-final DATA frame counts as overhead (see customize). */
  static final int SMALL_DATA_FRAME = 64;

  /** HTTP/2's initial flow-control window per stream, which Tomcat allocates per request. */
  static final int STREAM_WINDOW = 16 * 1024;

  private final ServerSettings settings;

  ConnectorLimits(ServerSettings settings) {
    this.settings = settings;
  }

  @Override
  public void customize(Connector connector) {
    long read = settings.readTimeout().toMillis();
    // Tomcat otherwise reads a body under connectionTimeout (the header timeout); a body read
    // blocks a worker thread, so it gets its own, separately configured bound
    connector.setProperty("disableUploadTimeout", "false");
    connector.setProperty("connectionUploadTimeout", Long.toString(read));
    for (UpgradeProtocol protocol : connector.findUpgradeProtocols()) {
      if (protocol instanceof Http2Protocol h2) {
        // a partial frame, a stalled stream body, an idle connection
        h2.setReadTimeout(settings.headerTimeout().toMillis());
        h2.setStreamReadTimeout(read);
        h2.setKeepAliveTimeout(settings.idleTimeout().toMillis());
        // Tomcat returns the connection's flow-control window in as many bytes as each read took,
        // so a client sending a body larger than the window (the API server, a pod over 64 KiB)
        // is let through a few bytes at a time and sends DATA frames of 1 or 2 bytes. At Tomcat's
        // default of 1024, two such frames in a row end the connection, and with it every
        // admission multiplexed on it, for "too much overhead". At 64 a flood of tiny frames
        // still ends the connection within a few frames.
        h2.setOverheadDataThreshold(SMALL_DATA_FRAME);
        // Tomcat gives each stream that sends a body an input buffer and a copy buffer the size
        // of this window: at the default 64 KiB that was 128 KiB per admission, 30 % of all the
        // bytes an HTTP/2 admission allocated. A typical pod's review fits in 16 KiB; a larger
        // one is read as the window reopens.
        h2.setInitialWindowSize(STREAM_WINDOW);
      }
    }
  }
}
