package io.meshinjector.webhook.server;

import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.admission.AdmissionReply;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.settings.WarmupSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;

/**
 * Admissions of a typical pod (a Deployment's, in an enabled namespace of a small built-in cluster
 * view), in-process, before {@code /readyz} first answers 200: Spring Boot turns readiness to
 * accepting traffic only after its runners have returned. Without it the first burst after a
 * replica starts, which is what a rolling update meets, pays for class loading, the first
 * interpreted runs and the JIT's first compilations.
 *
 * <p>What it covers: the endpoint's checks, the codec's decode, the validation, the decision, the
 * patch, and the encoded answer, each the code a request runs. What it does not: TLS, HTTP framing
 * and Reactor Netty's handler, which the AOT cache's training run loads the classes of. The
 * admissions go to their own metrics registry and log nothing, so neither the admission metrics nor
 * the log count them as requests; the built-in view keeps the live cluster out of it (a namespace
 * missing from the informers would be read from the API server).
 */
public final class Warmup implements ApplicationRunner {
  private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
  private static final String REVIEW = "aot-training-review.json";
  private static final String CLUSTER = "warmup-cluster.yaml";

  private final AdmissionEndpoint endpoint;
  private final MeshConfig config;
  private final WarmupSettings settings;
  private final ApplicationAvailability availability;

  public Warmup(
      AdmissionEndpoint endpoint,
      MeshConfig config,
      WarmupSettings settings,
      ApplicationAvailability availability) {
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.config = Objects.requireNonNull(config, "config");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.availability = Objects.requireNonNull(availability, "availability");
  }

  @Override
  public void run(ApplicationArguments args) {
    if (settings.admissions() == 0) {
      return;
    }
    // said in the line, so that an operator sees the warm-up ran while /readyz still refused
    ReadinessState readiness = availability.getReadinessState();
    long start = System.nanoTime();
    try {
      int patched = admissions();
      LOG.info(
          "warm-up: {} in-process admissions of an example pod in {} ms, readiness {}",
          patched,
          (System.nanoTime() - start) / 1_000_000,
          readiness);
    } catch (RuntimeException e) {
      // a warm-up that fails costs speed, never the start
      LOG.warn("warm-up stopped: {}", e.toString());
    }
  }

  /** Runs the admissions; how many were answered with a patch. */
  public int admissions() {
    byte[] review = resource(REVIEW);
    ClusterView view =
        ClusterFiles.parse(
            config.engine().capabilities(),
            new String(resource(CLUSTER), StandardCharsets.UTF_8),
            CLUSTER,
            w -> {});
    AdmissionMetrics unrecorded = new AdmissionMetrics(new SimpleMeterRegistry());
    AdmissionEndpoint quiet = endpoint.unrecorded(() -> view, unrecorded);
    long deadline = System.nanoTime() + settings.maxDuration().toNanos();
    int patched = 0;
    for (int i = 0; i < settings.admissions() && System.nanoTime() < deadline; i++) {
      AdmissionReply reply = quiet.answer("application/json", RequestBody.of(review));
      quiet.encode(reply);
      if (reply instanceof AdmissionReply.Patched) {
        patched++;
      }
    }
    return patched;
  }

  private static byte[] resource(String name) {
    try (InputStream in = Warmup.class.getResourceAsStream(name)) {
      return Objects.requireNonNull(in, name).readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
