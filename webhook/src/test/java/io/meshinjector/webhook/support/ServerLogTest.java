package io.meshinjector.webhook.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.webhook.http.AdmissionService;
import io.meshinjector.webhook.logging.RequestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The tests over TLS rely on it to see Tomcat's connection errors and the answered UIDs. */
class ServerLogTest {
  private final ServerLog log = ServerLog.attach();

  @AfterEach
  void detach() {
    log.detach();
  }

  @Test
  void collectsTomcatsConnectionErrorsAndNothingElseOfHttp2() {
    var http2 = LoggerFactory.getLogger("org.apache.coyote.http2.Http2UpgradeHandler");
    var logback = (ch.qos.logback.classic.Logger) http2;
    logback.setLevel(ch.qos.logback.classic.Level.DEBUG);
    try {
      http2.debug("Connection [7], Stream [0], Frame type [null], Error");
      http2.debug("Connection error", new IllegalStateException("Stream [9] has been closed"));
    } finally {
      logback.setLevel(null);
    }

    assertThat(log.connectionErrors())
        .containsExactly("Connection error: Stream [9] has been closed");
  }

  @Test
  void countsTheLinesOfEachAnsweredUid() {
    var service = LoggerFactory.getLogger(AdmissionService.class);
    try (RequestContext ctx = RequestContext.open().uid("u-1")) {
      service.info("injected: init/nft");
    }
    try (RequestContext ctx = RequestContext.open()) {
      service.info("answered 400: the body is not valid JSON");
    }

    assertThat(log.answered("u-1")).isEqualTo(1);
    assertThat(log.answered("-")).isZero();
    assertThat(log.answered("u-2")).isZero();
  }
}
