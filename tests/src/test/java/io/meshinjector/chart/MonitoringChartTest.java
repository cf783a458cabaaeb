package io.meshinjector.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The dashboard ConfigMap and the PrometheusRule as Kubernetes receives them, both opt-in. */
class MonitoringChartTest {
  static final Path FILES = Charts.CHART.resolve("files");

  @Test
  void neitherIsRenderedByDefault() throws IOException {
    List<JsonNode> docs = Charts.render(t -> t);
    assertThat(Charts.ofKind(docs, "PrometheusRule")).isEmpty();
    assertThat(docs.stream().filter(Charts.component("monitoring"))).isEmpty();
  }

  @Test
  void theDashboardIsAConfigMapTheGrafanaSidecarPicksUp() throws IOException {
    List<JsonNode> docs = Charts.render(t -> t.set("monitoring.dashboard.enabled", true));
    JsonNode cm = Charts.find(docs, "ConfigMap", Charts.FULLNAME + "-dashboard");
    assertThat(cm.at("/metadata/namespace").asText()).isEqualTo(Charts.NS);
    assertThat(cm.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
    assertThat(cm.at("/metadata/labels/app.kubernetes.io~1instance").asText())
        .isEqualTo(Charts.RELEASE);
    JsonNode dashboard = new ObjectMapper().readTree(cm.at("/data/mesh-injector.json").asText());
    assertThat(dashboard)
        .isEqualTo(new ObjectMapper().readTree(FILES.resolve("grafana-dashboard.json").toFile()));
    assertThat(dashboard.path("uid").asText()).isEqualTo("mesh-injector");
    assertThat(dashboard.findValues("expr")).hasSizeGreaterThan(10);
    assertThat(Charts.ofKind(docs, "PrometheusRule")).isEmpty();
  }

  @Test
  void theDashboardGoesWhereTheSidecarLooksWithItsLabel() throws IOException {
    List<JsonNode> docs =
        Charts.render(
            t ->
                t.set("monitoring.dashboard.enabled", true)
                    .set("monitoring.dashboard.namespace", "monitoring")
                    .set("monitoring.dashboard.labels.grafana_dashboard", "mesh")
                    .set("monitoring.dashboard.annotations.grafana_folder", "Mesh"));
    JsonNode cm = Charts.find(docs, "ConfigMap", Charts.FULLNAME + "-dashboard");
    assertThat(cm.at("/metadata/namespace").asText()).isEqualTo("monitoring");
    assertThat(cm.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("mesh");
    assertThat(cm.at("/metadata/annotations/grafana_folder").asText()).isEqualTo("Mesh");
  }

  @Test
  void thePrometheusRuleCarriesTheRulesFileThatPromtoolChecks() throws IOException {
    List<JsonNode> docs =
        Charts.render(
            t ->
                t.set("monitoring.prometheusRule.enabled", true)
                    .set("monitoring.prometheusRule.labels.release", "kube-prometheus-stack"));
    JsonNode rule = Charts.find(docs, "PrometheusRule", Charts.FULLNAME);
    assertThat(rule.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(rule.at("/metadata/namespace").asText()).isEqualTo(Charts.NS);
    assertThat(rule.at("/metadata/labels/release").asText()).isEqualTo("kube-prometheus-stack");
    // the alert templates ({{ $labels... }}) reach Prometheus untouched by Helm
    assertThat(rule.path("spec"))
        .isEqualTo(Charts.YAML.readTree(FILES.resolve("prometheus-rules.yaml").toFile()));
    assertThat(rule.findValues("alert").stream().map(JsonNode::asText))
        .contains(
            "MeshInjectorAdmissionErrors",
            "MeshInjectorAdmissionLatencyHigh",
            "MeshInjectorRefusals",
            "MeshInjectorViewNotSynced",
            "MeshInjectorViewDoesNotFit",
            "MeshInjectorViewStale",
            "MeshInjectorProbeReportsStale",
            "MeshInjectorNodesWithoutPath",
            "MeshInjectorCertificateExpiring");
    assertThat(rule.at("/spec/groups/0/rules/0/annotations/summary").asText())
        .contains("{{ $labels.type }}");
  }

  @Test
  void theSchemaRefusesAnUnknownMonitoringKey() {
    assertThatThrownBy(() -> Charts.render(t -> t.set("monitoring.dashboard.enable", true)))
        .hasMessageContaining("values don't meet the specifications of the schema")
        .hasMessageContaining("monitoring/dashboard");
  }
}
