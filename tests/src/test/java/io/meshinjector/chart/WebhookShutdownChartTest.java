package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.FULLNAME;
import static io.meshinjector.chart.Charts.YAML;
import static io.meshinjector.chart.Charts.find;
import static io.meshinjector.chart.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A webhook pod stops without failing a request: a preStop pause while endpoints are removed, the
 * server's drain and graceful shutdown (written into its config), all inside the grace period.
 */
class WebhookShutdownChartTest {

  private static JsonNode config(List<JsonNode> docs) throws IOException {
    return YAML.readTree(
        find(docs, "ConfigMap", FULLNAME + "-config").at("/data/config.yaml").asText());
  }

  @Test
  void preStopPauseDrainAndTimeoutFitInTheGracePeriod() throws IOException {
    List<JsonNode> docs = render(t -> t);
    JsonNode pod = find(docs, "Deployment", FULLNAME).at("/spec/template/spec");
    JsonNode container = pod.path("containers").get(0);
    int preStop = container.at("/lifecycle/preStop/sleep/seconds").asInt();
    assertThat(preStop).isEqualTo(5);
    JsonNode server = config(docs).at("/webhook/server");
    // the readiness probe (every 5 s, 2 failures) sees /readyz 503 within 10 s of SIGTERM
    assertThat(server.path("drainPeriod").asText()).isEqualTo("15s");
    assertThat(server.path("shutdownTimeout").asText()).isEqualTo("20s");
    assertThat(pod.path("terminationGracePeriodSeconds").asInt())
        .as("grace covers preStop + drain + in-flight timeout")
        .isGreaterThanOrEqualTo(preStop + 15 + 20)
        .isEqualTo(45);
  }

  @Test
  void theListenerOutlivesTheKubeletsReadinessOfThePod() throws IOException {
    List<JsonNode> docs =
        render(
            t ->
                t.set("probes.readiness.periodSeconds", 10)
                    .set("probes.readiness.failureThreshold", 3)
                    .set("shutdown.drainSeconds", 5));
    JsonNode probe =
        find(docs, "Deployment", FULLNAME).at("/spec/template/spec/containers/0/readinessProbe");
    Duration drain =
        io.meshinjector.engine.config.ConfigSection.parseDuration(
            config(docs).at("/webhook/server/drainPeriod").asText());
    assertThat(drain.toSeconds())
        .as("the drain outlasts periodSeconds x failureThreshold of the rendered probe")
        .isGreaterThan(
            (long) probe.path("periodSeconds").asInt() * probe.path("failureThreshold").asInt());
    // a longer drain asked for is kept
    assertThat(
            config(render(t -> t.set("shutdown.drainSeconds", 30)))
                .at("/webhook/server/drainPeriod")
                .asText())
        .isEqualTo("30s");
  }

  @Test
  void theShutdownValuesMoveTogether() throws IOException {
    List<JsonNode> docs =
        render(
            t ->
                t.set("shutdown.preStopSeconds", 10)
                    .set("shutdown.drainSeconds", 7)
                    .set("shutdown.timeoutSeconds", 30));
    JsonNode pod = find(docs, "Deployment", FULLNAME).at("/spec/template/spec");
    assertThat(pod.at("/containers/0/lifecycle/preStop/sleep/seconds").asInt()).isEqualTo(10);
    // 7 s asked for, 15 s the readiness probe needs
    assertThat(pod.path("terminationGracePeriodSeconds").asInt()).isEqualTo(10 + 15 + 30 + 5);
    assertThat(config(docs).at("/webhook/server/drainPeriod").asText()).isEqualTo("15s");
    assertThat(config(docs).at("/webhook/server/shutdownTimeout").asText()).isEqualTo("30s");

    JsonNode without =
        find(render(t -> t.set("shutdown.preStopSeconds", 0)), "Deployment", FULLNAME)
            .at("/spec/template/spec/containers/0");
    assertThat(without.has("lifecycle")).isFalse();
  }

  @Test
  void theDrainCannotBeSetAroundTheChart() {
    assertThatThrownBy(() -> render(t -> t.set("config.webhook.server.drainPeriod", "1s")))
        .hasMessageContaining(
            "config.webhook.server.drainPeriod is set by the chart; use shutdown.drainSeconds");
  }
}
