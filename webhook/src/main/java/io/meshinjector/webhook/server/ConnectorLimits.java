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
      }
    }
  }
}
