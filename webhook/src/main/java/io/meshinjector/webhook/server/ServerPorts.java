package io.meshinjector.webhook.server;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;

/** The ports the servers actually bound, for {@code --port 0} (tests) and the start-up line. */
public final class ServerPorts implements ApplicationListener<WebServerInitializedEvent> {
  private volatile int https = -1;
  private volatile int management = -1;

  @Override
  public void onApplicationEvent(WebServerInitializedEvent event) {
    if ("management".equals(event.getApplicationContext().getServerNamespace())) {
      management = event.getWebServer().getPort();
    } else {
      https = event.getWebServer().getPort();
    }
  }

  public int https() {
    return https;
  }

  public int management() {
    return management;
  }
}
