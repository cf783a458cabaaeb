package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.cluster.ViewHealth;
import io.meshinjector.webhook.support.InProcessEndpoint;
import io.meshinjector.webhook.support.Reviews;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The HTTPS port's routes, and the handler's own failures, which a real client cannot cause on
 * demand: a body that breaks off, an answer that cannot be sent. Its lines must still name the
 * request, and nothing may escape as an error.
 */
class AdmissionHttpHandlerTest {
  private static final int MAX_BYTES = 64 * 1024;
  private static final MeshConfig CONFIG =
      ConfigLoader.fromYaml("config.yaml", "webhook:\n  maxRequestBytes: " + MAX_BYTES);

  private final List<ILoggingEvent> logged = new CopyOnWriteArrayList<>();
  private final AppenderBase<ILoggingEvent> appender =
      new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
          event.prepareForDeferredProcessing();
          logged.add(event);
        }
      };
  private final Logger logger = (Logger) LoggerFactory.getLogger(AdmissionHttpHandler.class);
  private final ApplicationAvailabilityBean availability = new ApplicationAvailabilityBean();
  private final AtomicBoolean synced = new AtomicBoolean(true);

  @BeforeEach
  void capture() {
    appender.start();
    logger.addAppender(appender);
    availability.onApplicationEvent(new AvailabilityChangeEvent<>(this, LivenessState.CORRECT));
    availability.onApplicationEvent(
        new AvailabilityChangeEvent<>(this, ReadinessState.ACCEPTING_TRAFFIC));
  }

  @AfterEach
  void release() {
    logger.detachAppender(appender);
  }

  private AdmissionHttpHandler handler() {
    AdmissionEndpoint endpoint = InProcessEndpoint.overExampleCluster(CONFIG);
    ViewHealth health =
        new ViewHealth() {
          @Override
          public boolean synced() {
            return synced.get();
          }

          @Override
          public Optional<Duration> age() {
            return Optional.empty();
          }
        };
    return new AdmissionHttpHandler(endpoint, new HealthProbes(availability, health));
  }

  private static byte[] review(String uid) throws Exception {
    ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) review.path("request")).put("uid", uid);
    return Reviews.JSON.writeValueAsBytes(review);
  }

  private static MockServerHttpRequest post(byte[] body) {
    return MockServerHttpRequest.post("/mutate")
        .contentType(MediaType.APPLICATION_JSON)
        .contentLength(body.length)
        .body(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
  }

  private static String body(MockServerHttpResponse response) {
    return response.getBodyAsString().block(Duration.ofSeconds(5));
  }

  @Test
  void answersAnAdmissionWithItsLengthAndType() throws Exception {
    MockServerHttpResponse response = new MockServerHttpResponse();
    handler().handle(post(review("u-1")), response).block(Duration.ofSeconds(5));

    String body = body(response);
    assertThat(response.getStatusCode().value()).isEqualTo(200);
    assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
    assertThat(body).contains("\"uid\":\"u-1\"", "\"patchType\":\"JSONPatch\"");
    assertThat(response.getHeaders().getContentLength())
        .isEqualTo(body.getBytes(StandardCharsets.UTF_8).length);
    assertThat(logged).isEmpty();
  }

  @Test
  void aBodyInManyBuffersIsReadWhole() throws Exception {
    byte[] review = review("u-4");
    List<DataBuffer> parts = new ArrayList<>();
    for (int i = 0; i < review.length; i += 100) {
      parts.add(
          DefaultDataBufferFactory.sharedInstance.wrap(
              Arrays.copyOfRange(review, i, Math.min(review.length, i + 100))));
    }
    // chunked: no Content-Length
    MockServerHttpRequest request =
        MockServerHttpRequest.post("/mutate")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Flux.fromIterable(parts));
    MockServerHttpResponse response = new MockServerHttpResponse();
    handler().handle(request, response).block(Duration.ofSeconds(5));

    assertThat(response.getStatusCode().value()).isEqualTo(200);
    assertThat(body(response)).contains("\"uid\":\"u-4\"", "\"patchType\":\"JSONPatch\"");
  }

  @Test
  void aDeclaredLengthOverTheLimitIsRefusedUnread() {
    AtomicBoolean subscribed = new AtomicBoolean();
    MockServerHttpRequest request =
        MockServerHttpRequest.post("/mutate")
            .contentType(MediaType.APPLICATION_JSON)
            .contentLength(MAX_BYTES + 1)
            .body(Flux.<DataBuffer>never().doOnSubscribe(s -> subscribed.set(true)));
    MockServerHttpResponse response = new MockServerHttpResponse();
    handler().handle(request, response).block(Duration.ofSeconds(5));

    assertThat(response.getStatusCode().value()).isEqualTo(413);
    assertThat(body(response)).contains(Integer.toString(MAX_BYTES));
    assertThat(subscribed).as("the body was read").isFalse();
  }

  @Test
  void aChunkedBodyOverTheLimitIsRefused() {
    byte[] chunk = new byte[MAX_BYTES / 4 + 1];
    Arrays.fill(chunk, (byte) ' ');
    MockServerHttpRequest request =
        MockServerHttpRequest.post("/mutate")
            .contentType(MediaType.APPLICATION_JSON)
            .body(
                Flux.range(0, 4)
                    .map(i -> DefaultDataBufferFactory.sharedInstance.wrap(chunk.clone())));
    MockServerHttpResponse response = new MockServerHttpResponse();
    handler().handle(request, response).block(Duration.ofSeconds(5));

    assertThat(response.getStatusCode().value()).isEqualTo(413);
  }

  @Test
  void aBodyThatBreaksOffIsABadRequest() {
    MockServerHttpRequest request =
        MockServerHttpRequest.post("/mutate")
            .contentType(MediaType.APPLICATION_JSON)
            .body(
                Flux.concat(
                    Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(new byte[] {'{'})),
                    Flux.error(new IOException("Connection reset by peer"))));
    MockServerHttpResponse response = new MockServerHttpResponse();
    handler().handle(request, response).block(Duration.ofSeconds(5));

    assertThat(response.getStatusCode().value()).isEqualTo(400);
    assertThat(body(response)).contains("the body cannot be read").doesNotContain("reset");
  }

  @Test
  void anAnswerThatCannotBeSentIsLoggedWithTheRequest() throws Exception {
    MockServerHttpResponse response = new MockServerHttpResponse();
    response.setWriteHandler(body -> Mono.error(new IOException("Broken pipe")));
    handler().handle(post(review("u-3")), response).block(Duration.ofSeconds(5));

    assertThat(logged).hasSize(1);
    ILoggingEvent warning = logged.get(0);
    assertThat(warning.getFormattedMessage()).startsWith("cannot send the answer (200)");
    assertThat(warning.getMDCPropertyMap())
        .containsEntry("uid", "u-3")
        .containsEntry("namespace", "shop")
        .containsEntry("pod", "checkout-6d4cf56db6-*");
    assertThat(MDC.get("uid")).isNull();
  }

  @Test
  void probesAnswerFromAvailabilityAndTheView() {
    assertThat(get("/healthz")).isEqualTo("200 ok\n");
    assertThat(get("/readyz")).isEqualTo("200 ok\n");
    synced.set(false);
    assertThat(get("/readyz")).isEqualTo("503 not ready: the cluster view has not synced yet\n");
    synced.set(true);
    availability.onApplicationEvent(
        new AvailabilityChangeEvent<>(this, ReadinessState.REFUSING_TRAFFIC));
    assertThat(get("/readyz")).isEqualTo("503 not ready\n");
    assertThat(get("/healthz")).isEqualTo("200 ok\n");
    availability.onApplicationEvent(new AvailabilityChangeEvent<>(this, LivenessState.BROKEN));
    assertThat(get("/healthz")).isEqualTo("503 not ready\n");
  }

  @Test
  void otherPathsAndMethodsAreRefusedByName() {
    assertThat(get("/metrics")).isEqualTo("404 not found: /metrics\n");
    MockServerHttpResponse response = new MockServerHttpResponse();
    handler()
        .handle(MockServerHttpRequest.method(HttpMethod.GET, "/mutate").build(), response)
        .block(Duration.ofSeconds(5));
    assertThat(response.getStatusCode().value()).isEqualTo(405);
    assertThat(response.getHeaders().getFirst(HttpHeaders.ALLOW)).isEqualTo("POST");
    MockServerHttpResponse probe = new MockServerHttpResponse();
    handler()
        .handle(MockServerHttpRequest.method(HttpMethod.DELETE, "/readyz").build(), probe)
        .block(Duration.ofSeconds(5));
    assertThat(probe.getStatusCode().value()).isEqualTo(405);
    MockServerHttpResponse head = new MockServerHttpResponse();
    handler()
        .handle(MockServerHttpRequest.method(HttpMethod.HEAD, "/healthz").build(), head)
        .block(Duration.ofSeconds(5));
    assertThat(head.getStatusCode().value()).isEqualTo(405);
    assertThat(head.getHeaders().getFirst(HttpHeaders.ALLOW)).isEqualTo("GET");
  }

  @Test
  void aFailureOutsideTheServiceIsA500NotAnError() {
    AdmissionHttpHandler handler =
        new AdmissionHttpHandler(
            InProcessEndpoint.overExampleCluster(CONFIG),
            new HealthProbes(
                availability,
                new ViewHealth() {
                  @Override
                  public boolean synced() {
                    throw new IllegalStateException("a bug");
                  }

                  @Override
                  public Optional<Duration> age() {
                    return Optional.empty();
                  }
                }));
    MockServerHttpResponse response = new MockServerHttpResponse();
    handler
        .handle(MockServerHttpRequest.get("/readyz").build(), response)
        .block(Duration.ofSeconds(5));

    assertThat(response.getStatusCode().value()).isEqualTo(500);
    assertThat(body(response)).isEqualTo("internal error\n");
    assertThat(logged).hasSize(1);
    assertThat(logged.get(0).getFormattedMessage()).isEqualTo("cannot answer GET /readyz");
  }

  private String get(String path) {
    MockServerHttpResponse response = new MockServerHttpResponse();
    handler()
        .handle(MockServerHttpRequest.get(path).build(), response)
        .block(Duration.ofSeconds(5));
    return response.getStatusCode().value() + " " + body(response);
  }
}
