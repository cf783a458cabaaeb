package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.admission.PodAdmission;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.settings.WarmupSettings;
import io.meshinjector.webhook.support.Captured;
import io.meshinjector.webhook.support.InProcessEndpoint;
import io.meshinjector.webhook.support.NoDrain;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.ServedContexts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The warm-up admits the example pod through the service's own path before readiness, and neither
 * the admission metrics nor the log count it.
 */
class WarmupTest {
  private static final MeshConfig CONFIG = ConfigLoader.defaults();

  @Test
  void itAdmitsThePodAndCountsNowhere() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ClusterView view =
        ClusterFiles.load(CONFIG.engine().capabilities(), List.of(Reviews.example("cluster.yaml")));
    AdmissionEndpoint service = InProcessEndpoint.of(CONFIG, () -> view, registry);
    Warmup warmup =
        new Warmup(
            service,
            CONFIG,
            new WarmupSettings(25, Duration.ofSeconds(30)),
            new org.springframework.boot.availability.ApplicationAvailabilityBean());
    try (Captured log = Captured.on(PodAdmission.class)) {
      assertThat(warmup.admissions()).isEqualTo(25);
      assertThat(log.lines()).isEmpty();
      assertThat(registry.find("mesh_injector_admission").timers()).isEmpty();
      assertThat(registry.find("mesh_injector_decisions").counters()).isEmpty();

      // the same review as a request is logged and counted: the checks above can fail
      byte[] review;
      try (InputStream in = Warmup.class.getResourceAsStream("aot-training-review.json")) {
        review = in.readAllBytes();
      }
      service.answer("application/json", RequestBody.of(review));
      assertThat(log.lines()).isNotEmpty();
      assertThat(registry.find("mesh_injector_admission").timer().count()).isEqualTo(1);
    }
  }

  @Test
  void aTimeLimitStopsIt() {
    AdmissionEndpoint service = InProcessEndpoint.overExampleCluster(CONFIG);
    Warmup warmup =
        new Warmup(
            service,
            CONFIG,
            new WarmupSettings(1_000_000, Duration.ofMillis(300)),
            new org.springframework.boot.availability.ApplicationAvailabilityBean());
    long start = System.nanoTime();
    int done = warmup.admissions();
    assertThat(done).isPositive().isLessThan(1_000_000);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  /**
   * Served as {@code serve} runs: the warm-up's line, as the console shows it, says it ran while
   * readiness still refused traffic.
   */
  @Test
  void serveWarmsUpBeforeItIsReady(@TempDir Path tmp) throws Exception {
    Path config = tmp.resolve("config.yaml");
    // a time cap long enough that the count, not the clock, ends the warm-up on a busy machine
    NoDrain.config(config, "webhook:\n  warmup:\n    admissions: 40\n    maxDuration: 60s\n");
    var cli = MeshInjector.commandLine();
    // the console appender writes to whatever System.out is; serve's logging set-up replaces any
    // appender a test attaches before it, and the line is logged before serve returns
    PrintStream out = System.out;
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    System.setOut(new PrintStream(new Tee(out, console), true, StandardCharsets.UTF_8));
    ConfigurableApplicationContext context = null;
    try {
      int code =
          cli.execute(
              "serve",
              "--port=0",
              "--metrics-port=0",
              "--tls-dir=" + tmp.resolve("tls"),
              "--config=" + config,
              "--cluster=" + Reviews.example("cluster.yaml"));
      assertThat(code).isZero();
      context = ServedContexts.last();
      Pattern warmedUp =
          Pattern.compile(
              "warm-up: 40 in-process admissions of an example pod in \\d+ ms, readiness "
                  + ReadinessState.REFUSING_TRAFFIC
                  + "\\R");
      // the console is written by AsyncConsole's writer, a few milliseconds later
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!warmedUp.matcher(console.toString(StandardCharsets.UTF_8)).find()
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(console.toString(StandardCharsets.UTF_8)).containsPattern(warmedUp);
      ServerPorts ports = context.getBean(ServerPorts.class);
      String metrics =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://localhost:" + ports.management() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics).doesNotContain("mesh_injector_decisions_total{");
      assertThat(metrics)
          .doesNotContainPattern("mesh_injector_admission_seconds_count\\{[^}]*\\} [1-9]");
    } finally {
      System.setOut(out);
      if (context != null) {
        context.close();
      }
    }
  }

  /** Writes to the console as before and keeps a copy. */
  private static final class Tee extends OutputStream {
    private final OutputStream console;
    private final ByteArrayOutputStream copy;

    Tee(OutputStream console, ByteArrayOutputStream copy) {
      this.console = console;
      this.copy = copy;
    }

    @Override
    public void write(int b) throws IOException {
      console.write(b);
      copy.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      console.write(b, off, len);
      copy.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      console.flush();
    }
  }
}
