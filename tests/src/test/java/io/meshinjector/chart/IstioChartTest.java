package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.FULLNAME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code config.mesh: istio}: the chart renders without Linkerd's trust anchors, for Istio. */
class IstioChartTest {
  private static List<JsonNode> istio() throws IOException {
    return Charts.parse(
        Charts.renderWithoutTrustAnchors(Charts.CHART, t -> t.set("config.mesh", "istio")));
  }

  @Test
  void rendersWithoutTrustAnchorsAndTheWebhookLoadsItsConfigAsIstio() throws IOException {
    List<JsonNode> docs = istio();
    String configYaml =
        Charts.find(docs, "ConfigMap", FULLNAME + "-config").at("/data/config.yaml").asText();
    MeshConfig config = ConfigLoader.fromYaml(configYaml);
    assertThat(config.tree().get("mesh").asText()).isEqualTo("istio");
    assertThat(config.engine().injection().proxyContainerName()).isEqualTo("istio-proxy");
  }

  @Test
  void theCniDefaultsFollowTheMesh() throws IOException {
    List<JsonNode> docs = istio();
    JsonNode probe =
        Charts.ofKind(docs, "DaemonSet").stream()
            .filter(d -> d.at("/spec/template/spec/containers/0/args").toString().contains("probe"))
            .findFirst()
            .orElseThrow();
    List<String> args =
        Charts.YAML.convertValue(
            probe.at("/spec/template/spec/containers/0/args"),
            Charts.YAML.getTypeFactory().constructCollectionType(List.class, String.class));
    assertThat(args.get(args.indexOf("--cni-plugin") + 1)).isEqualTo("istio-cni");
    // the CNI DaemonSet's pods are read where Istio's CNI runs
    assertThat(
            Charts.parse(
                    Charts.renderWithoutTrustAnchors(
                        Charts.CHART,
                        t -> t.set("config.mesh", "istio").set("cniPodsRole", "always")))
                .stream()
                .filter(d -> d.path("kind").asText().equals("Role"))
                .map(d -> d.at("/metadata/namespace").asText()))
        .contains("istio-system");
  }

  @Test
  void anUnknownMeshIsRefusedNamingTheValue() {
    assertThatThrownBy(
            () -> Charts.renderWithoutTrustAnchors(Charts.CHART, t -> t.set("config.mesh", "kuma")))
        .hasMessageContaining("config.mesh must be linkerd or istio")
        .hasMessageContaining("kuma");
  }
}
