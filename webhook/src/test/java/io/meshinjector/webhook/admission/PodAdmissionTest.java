package io.meshinjector.webhook.admission;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import io.meshinjector.webhook.server.RequestBody;
import io.meshinjector.webhook.support.InProcessEndpoint;
import io.meshinjector.webhook.support.Reviews;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The paths a real server cannot be pushed into on demand: an internal failure. */
class PodAdmissionTest {
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(PodAdmission.class);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void captureLogs() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void releaseLogs() {
    logger.detachAppender(logs);
  }

  /** A view whose node index fails, as a bug in a feeder would make it. */
  static final class BrokenView implements ClusterView {
    @Override
    public Optional<Namespace> namespace(String name) {
      return Optional.of(
          new io.fabric8.kubernetes.api.model.NamespaceBuilder()
              .withNewMetadata()
              .withName(name)
              .addToAnnotations("mesh-injector.io/inject", "enabled")
              .endMetadata()
              .build());
    }

    @Override
    public NodeIndex nodes(Instant now) {
      throw new IllegalStateException("secret internal detail");
    }
  }

  private AdmissionEndpoint service() {
    return InProcessEndpoint.of(ConfigLoader.defaults(), BrokenView::new, registry);
  }

  @Test
  void anInternalErrorIs500WithTheUidAndNoStackTraceAndIsLoggedWithTheRequest() throws Exception {
    AdmissionEndpoint service = service();
    var review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    String uid = review.path("request").path("uid").asText();
    byte[] body = Reviews.JSON.writeValueAsBytes(review);

    AdmissionReply reply = service.answer("application/json", RequestBody.of(body));

    assertThat(reply.httpStatus()).isEqualTo(500);
    AdmissionCodec.Encoded encoded = new AdmissionCodec(100, 1 << 20).encode(reply);
    String answer = new String(encoded.bytes(), 0, encoded.length(), StandardCharsets.UTF_8);
    assertThat(answer).contains(uid).doesNotContain("secret internal detail", "Exception", "at ");
    assertThat(registry.get("mesh_injector_errors").tag("type", "internal").counter().count())
        .isEqualTo(1.0);

    ILoggingEvent error =
        logs.list.stream()
            .filter(e -> e.getLevel().toString().equals("ERROR"))
            .findFirst()
            .orElseThrow();
    assertThat(error.getThrowableProxy().getMessage()).isEqualTo("secret internal detail");
    assertThat(error.getMDCPropertyMap())
        .containsEntry("uid", uid)
        .containsEntry("namespace", "shop")
        .containsEntry("pod", "checkout-6d4cf56db6-*");
    // every line of the request carries the three keys
    assertThat(logs.list)
        .allSatisfy(e -> assertThat(e.getMDCPropertyMap()).containsKeys("uid", "namespace", "pod"));
  }

  @Test
  void theContextIsClearedAfterTheRequest() throws Exception {
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    service().answer("application/json", RequestBody.of(body));
    assertThat(org.slf4j.MDC.get("uid")).isNull();
  }

  @Test
  void anUnreadableBodyIs400AndItsAnswerNamesOnlyTheRead() {
    AdmissionReply reply =
        service()
            .answer(
                "application/json",
                RequestBody.unreadable(new IOException("the body ended after 12 of 22 bytes")));
    assertThat(reply).isInstanceOf(AdmissionReply.Failed.class);
    assertThat(reply.httpStatus()).isEqualTo(400);
    assertThat(((AdmissionReply.Failed) reply).message()).isEqualTo("the body cannot be read");
  }
}
