package io.meshinjector.webhook.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.mutation.InjectionPipeline;
import io.meshinjector.webhook.mutation.Mutators;
import io.meshinjector.webhook.support.Reviews;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The controller's own failures, which a real client cannot cause on demand: the connection failing
 * after the service has answered. Its lines must still name the request.
 */
class AdmissionControllerTest {
  private final List<ILoggingEvent> logged = new CopyOnWriteArrayList<>();
  private final AppenderBase<ILoggingEvent> appender =
      new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
          event.prepareForDeferredProcessing();
          logged.add(event);
        }
      };
  private final Logger logger = (Logger) LoggerFactory.getLogger(AdmissionController.class);

  @BeforeEach
  void capture() {
    appender.start();
    logger.addAppender(appender);
  }

  @AfterEach
  void release() {
    logger.detachAppender(appender);
  }

  private static AdmissionController controller() {
    var config = ConfigLoader.defaults();
    InMemoryClusterView view =
        ClusterFiles.load(config.engine().capabilities(), List.of(Reviews.example("cluster.yaml")));
    AdmissionCodec codec = new AdmissionCodec(100, 1 << 20);
    return new AdmissionController(
        new AdmissionService(
            codec,
            new InjectionPipeline(
                new RuleEngine(config.engine(), Clock.systemUTC()),
                Mutators.forConfig(config),
                codec.mapper()),
            () -> view,
            new AdmissionMetrics(new SimpleMeterRegistry()),
            1 << 20,
            PodLimits.from(config)));
  }

  /** A request whose body reads, and whose stream then fails to close. */
  private static HttpServletRequest request(byte[] body, boolean closeFails) {
    ByteArrayInputStream bytes = new ByteArrayInputStream(body);
    ServletInputStream in =
        new ServletInputStream() {
          @Override
          public int read() {
            return bytes.read();
          }

          @Override
          public int read(byte[] b, int off, int len) {
            return bytes.read(b, off, len);
          }

          @Override
          public boolean isFinished() {
            return bytes.available() == 0;
          }

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public void setReadListener(ReadListener listener) {}

          @Override
          public void close() throws IOException {
            if (closeFails) {
              throw new IOException("connection reset on close");
            }
          }
        };
    return (HttpServletRequest)
        Proxy.newProxyInstance(
            AdmissionControllerTest.class.getClassLoader(),
            new Class<?>[] {HttpServletRequest.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getInputStream" -> in;
                  case "getContentType" -> "application/json";
                  case "getContentLengthLong" -> (long) body.length;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  /** A response that records what is set on it, and whose body cannot be written when asked. */
  private static HttpServletResponse response(Map<String, Object> set, boolean writeFails) {
    ServletOutputStream out =
        new ServletOutputStream() {
          @Override
          public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            if (writeFails) {
              throw new IOException("broken pipe");
            }
            set.merge("body", new String(b, off, len), (x, y) -> x + "" + y);
          }

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public void setWriteListener(WriteListener listener) {}
        };
    return (HttpServletResponse)
        Proxy.newProxyInstance(
            AdmissionControllerTest.class.getClassLoader(),
            new Class<?>[] {HttpServletResponse.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "getOutputStream":
                  return out;
                case "setStatus", "setContentType", "setContentLength":
                  set.put(method.getName(), args[0]);
                  return null;
                default:
                  throw new UnsupportedOperationException(method.getName());
              }
            });
  }

  private static byte[] review(String uid) throws Exception {
    var review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((com.fasterxml.jackson.databind.node.ObjectNode) review.path("request")).put("uid", uid);
    return Reviews.JSON.writeValueAsBytes(review);
  }

  @Test
  void writesTheAnswerItself() throws Exception {
    Map<String, Object> set = new HashMap<>();
    controller().mutate(request(review("u-1"), false), response(set, false));

    assertThat(set)
        .containsEntry("setStatus", 200)
        .containsEntry("setContentType", "application/json");
    assertThat((String) set.get("body")).contains("\"uid\":\"u-1\"", "\"patchType\":\"JSONPatch\"");
    assertThat(set.get("setContentLength")).isEqualTo(((String) set.get("body")).length());
    assertThat(logged).isEmpty();
  }

  @Test
  void aBodyFailingToCloseAfterTheAnswerIsLoggedAndTheAnswerStillSent() throws Exception {
    Map<String, Object> set = new HashMap<>();
    controller().mutate(request(review("u-2"), true), response(set, false));

    // the pod was decided on: a reset while closing the body must not refuse it with a 500
    assertThat(set).containsEntry("setStatus", 200);
    assertThat((String) set.get("body")).contains("\"uid\":\"u-2\"").doesNotContain("reset");
    ILoggingEvent warning = logged.get(0);
    assertThat(warning.getFormattedMessage()).startsWith("cannot close the request body");
    assertThat(warning.getMDCPropertyMap())
        .containsEntry("uid", "u-2")
        .containsEntry("namespace", "shop")
        .containsEntry("pod", "checkout-6d4cf56db6-*");
    assertThat(MDC.get("uid")).isNull();
  }

  @Test
  void anAnswerThatCannotBeSentIsLoggedWithTheRequest() throws Exception {
    Map<String, Object> set = new HashMap<>();
    controller().mutate(request(review("u-3"), false), response(set, true));

    assertThat(logged).hasSize(1);
    ILoggingEvent warning = logged.get(0);
    assertThat(warning.getFormattedMessage()).startsWith("cannot send the answer (200)");
    assertThat(warning.getMDCPropertyMap())
        .containsEntry("uid", "u-3")
        .containsEntry("namespace", "shop")
        .containsEntry("pod", "checkout-6d4cf56db6-*");
    assertThat(MDC.get("uid")).isNull();
  }
}
