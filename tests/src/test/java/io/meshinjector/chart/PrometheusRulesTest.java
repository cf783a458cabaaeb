package io.meshinjector.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alerts checked by Prometheus's own promtool (Debian's package {@code prometheus},
 * which .ci/run installs): the rules parse, and the cases of {@code
 * monitoring/prometheus-rules.test.yaml} pass, among them one that fires each alert.
 */
class PrometheusRulesTest {
  static final Path RULES = Charts.CHART.resolve("files/prometheus-rules.yaml");
  static final Path CASES = resource("monitoring/prometheus-rules.test.yaml");

  static Path promtool;

  static Path resource(String name) {
    try {
      return Path.of(PrometheusRulesTest.class.getClassLoader().getResource(name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @BeforeAll
  static void findPromtool() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, "promtool");
      if (Files.isExecutable(p)) {
        promtool = p;
        return;
      }
    }
    String why =
        "promtool not found on PATH: the Prometheus rules are not checked (install Debian's"
            + " package prometheus; .ci/run does)";
    System.err.println("PrometheusRulesTest: " + why);
    Assumptions.abort(why);
  }

  record Run(int exit, String output) {}

  static Run promtool(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(promtool.toString()));
    command.addAll(List.of(args));
    Path out = dir.resolve("promtool.out");
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
    return new Run(p.exitValue(), Files.readString(out));
  }

  @Test
  void promtoolChecksTheRules(@TempDir Path dir) throws Exception {
    Run r = promtool(dir, "check", "rules", RULES.toString());
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: 10 rules found");
  }

  @Test
  void promtoolTestsPassAndFireEveryAlert(@TempDir Path dir) throws Exception {
    Path cases = dir.resolve("rules.test.yaml");
    Files.writeString(
        cases, Files.readString(CASES).replace("[RULES]", "[" + RULES.toAbsolutePath() + "]"));
    Run r = promtool(dir, "test", "rules", cases.toString());
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS");

    Set<String> alerts = new HashSet<>();
    Charts.YAML.readTree(RULES.toFile()).findValues("alert").forEach(a -> alerts.add(a.asText()));
    Set<String> fired = new HashSet<>();
    for (JsonNode test : Charts.YAML.readTree(cases.toFile()).path("tests")) {
      for (JsonNode t : test.path("alert_rule_test")) {
        if (!t.path("exp_alerts").isEmpty()) {
          fired.add(t.path("alertname").asText());
        }
      }
    }
    assertThat(alerts).hasSize(10);
    assertThat(fired)
        .as("alerts a case expects to fire")
        .containsExactlyInAnyOrderElementsOf(alerts);
  }

  /** A case that expects the wrong thing fails: promtool's verdict is read, not assumed. */
  @Test
  void aWrongExpectationFails(@TempDir Path dir) throws Exception {
    Path cases = dir.resolve("wrong.test.yaml");
    Files.writeString(
        cases,
        Files.readString(CASES)
            .replace("[RULES]", "[" + RULES.toAbsolutePath() + "]")
            .replace(
                "exp_labels: {severity: critical, pod: mi-0}",
                "exp_labels: {severity: info, pod: mi-0}"));
    Run r = promtool(dir, "test", "rules", cases.toString());
    assertThat(r.exit()).isNotZero();
    assertThat(r.output()).contains("FAILED").contains("MeshInjectorViewNotSynced");
  }
}
