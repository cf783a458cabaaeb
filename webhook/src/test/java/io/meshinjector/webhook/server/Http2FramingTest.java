package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.webhook.support.RawHttp2;
import io.meshinjector.webhook.support.RawHttp2.Answered;
import io.meshinjector.webhook.support.RawHttp2.GoAway;
import io.meshinjector.webhook.support.RawHttp2.Outcome;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.Served;
import io.meshinjector.webhook.support.ServerLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the HTTP/2 connection treats a request body cut into DATA frames. The API server multiplexes
 * every admission on one connection, so a connection the server ends for "too much overhead" fails
 * them all. A body let through a flow-control window a few bytes at a time arrives in frames of 1
 * or 2 bytes between larger ones; that must be served, and so must a body sent a byte per frame. A
 * flood of empty frames, which carry no body at all, must end the connection.
 */
@Timeout(60)
class Http2FramingTest {
  @TempDir static Path tmp;
  private static Served served;
  private static byte[] review;

  @BeforeAll
  static void serve() throws Exception {
    ServerLog.logHttp2ConnectionErrors();
    try {
      served = Served.start(tmp, "webhook:\n  server:\n    drainPeriod: 0s\n");
    } finally {
      ServerLog.stopLoggingHttp2ConnectionErrors();
    }
    review = Reviews.JSON.writeValueAsBytes(Reviews.exampleJson("admission-review.json"));
  }

  @AfterAll
  static void stop() {
    if (served != null) {
      served.context().close();
    }
  }

  @Test
  void aBodyInTinyFramesBetweenLargerOnesIsServedAndTheConnectionStays() throws Exception {
    // what a client sends when each WINDOW_UPDATE returns only what one read took: a few hundred
    // bytes, then 2, then 1, over and over (a 3 KB pod: a dozen such pairs)
    List<Integer> frames = new ArrayList<>();
    while (frames.stream().mapToInt(Integer::intValue).sum() < review.length) {
      frames.addAll(List.of(200, 2, 1));
    }
    try (RawHttp2 h2 = RawHttp2.connect(served.ca(), served.https())) {
      for (int request = 0; request < 3; request++) {
        Outcome outcome = h2.post("/mutate", review, frames);
        assertThat(outcome)
            .as("request %d on one connection", request)
            .isInstanceOf(Answered.class);
        JsonNode response = Reviews.JSON.readTree(((Answered) outcome).body()).path("response");
        assertThat(response.path("allowed").asBoolean()).isTrue();
        assertThat(response.path("patch").asText()).isNotEmpty();
      }
    }
  }

  @Test
  void aFloodOfEmptyFramesEndsTheConnection() throws Exception {
    // DATA frames that carry nothing and do not end the stream cost the server work and move the
    // request no further (CVE-2019-9518); Netty ends the connection after a few in a row
    List<Integer> empties = Collections.nCopies(50, 0);
    ServerLog log = ServerLog.attach();
    try (RawHttp2 h2 = RawHttp2.connect(served.ca(), served.https())) {
      assertThat(h2.post("/mutate", review, empties))
          .isEqualTo(new GoAway(RawHttp2.ENHANCE_YOUR_CALM));
    } finally {
      log.detach();
    }
    // what AdmissionServerTest and ServingCertificateReloadIT look for when they assert none
    assertThat(log.connectionErrors()).anySatisfy(e -> assertThat(e).contains("errorCode '11'"));
  }

  @Test
  void aBodyInOneByteFramesIsServed() throws Exception {
    // slow but bounded: the body's size limit and the read timeout hold it, not a frame count
    List<Integer> ones = Collections.nCopies(200, 1);
    try (RawHttp2 h2 = RawHttp2.connect(served.ca(), served.https())) {
      Outcome outcome = h2.post("/mutate", review, ones);
      assertThat(outcome).isInstanceOf(Answered.class);
      JsonNode response = Reviews.JSON.readTree(((Answered) outcome).body()).path("response");
      assertThat(response.path("allowed").asBoolean()).isTrue();
      assertThat(response.path("patch").asText()).isNotEmpty();
    }
  }
}
