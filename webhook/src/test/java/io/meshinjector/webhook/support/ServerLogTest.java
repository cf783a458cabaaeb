package io.meshinjector.webhook.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.webhook.admission.PodAdmission;
import io.meshinjector.webhook.logging.RequestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The tests over TLS rely on it to see Netty's HTTP/2 connection errors and the answered UIDs. */
class ServerLogTest {
  private final ServerLog log = ServerLog.attach();

  @AfterEach
  void detach() {
    log.detach();
  }

  @Test
  void collectsNettysConnectionErrorsAndNothingElseOfHttp2() {
    var http2 = LoggerFactory.getLogger("io.netty.handler.codec.http2.Http2ConnectionHandler");
    var logback = (ch.qos.logback.classic.Logger) http2;
    logback.setLevel(ch.qos.logback.classic.Level.DEBUG);
    try {
      http2.debug("[id: 0x1] Stream 3 closed");
      http2.debug(
          "{} Sent GOAWAY: lastStreamId '{}', errorCode '{}', debugData '{}'. Forcing shutdown of"
              + " the connection.",
          "[id: 0x2]",
          7,
          11,
          "too many empty frames");
    } finally {
      logback.setLevel(null);
    }

    assertThat(log.connectionErrors())
        .containsExactly(
            "[id: 0x2] Sent GOAWAY: lastStreamId '7', errorCode '11', debugData 'too many empty"
                + " frames'. Forcing shutdown of the connection.");
  }

  @Test
  void countsTheLinesOfEachAnsweredUid() {
    var service = LoggerFactory.getLogger(PodAdmission.class);
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
