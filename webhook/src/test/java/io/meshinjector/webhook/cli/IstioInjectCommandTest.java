package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.meshinjector.webhook.support.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code inject} with {@code mesh: istio}: the same decision, Istio's pod, idempotent. */
class IstioInjectCommandTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @TempDir Path tmp;

  @Test
  void injectsIstioPartsChosenPerNodeAndInjectingTwiceChangesNothing() throws Exception {
    Path config = tmp.resolve("config.yaml");
    Files.writeString(config, "mesh: istio\n");
    String deployment =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: checkout, namespace: shop}
        spec:
          selector: {matchLabels: {app: checkout}}
          template:
            metadata: {labels: {app: checkout}}
            spec:
              nodeSelector: {pool: rhel}
              containers:
                - {name: checkout, image: ghcr.io/example/checkout:1.4.2}
        """;
    Cli.Run first =
        Cli.runWithStdin(
            deployment,
            "inject",
            "-f",
            "-",
            "--cluster",
            InjectCommandTest.CLUSTER,
            "--config",
            config.toString());
    assertThat(first.code()).as(first.err()).isZero();
    JsonNode spec = YAML.readTree(first.out()).at("/spec/template/spec");
    List<String> all = new ArrayList<>();
    spec.path("initContainers").forEach(c -> all.add(c.path("name").asText()));
    spec.path("containers").forEach(c -> all.add(c.path("name").asText()));
    assertThat(all).contains("istio-proxy", "istio-init").doesNotContain("linkerd-proxy");
    assertThat(
            YAML.readTree(first.out())
                .at("/spec/template/metadata/annotations/sidecar.istio.io~1status")
                .asText())
        .contains("istio-init");

    Cli.Run second =
        Cli.runWithStdin(
            first.out(),
            "inject",
            "-f",
            "-",
            "--cluster",
            InjectCommandTest.CLUSTER,
            "--config",
            config.toString());
    assertThat(second.code()).isZero();
    assertThat(YAML.readTree(second.out())).isEqualTo(YAML.readTree(first.out()));
  }

  @Test
  void explainSaysThePodsHoldSettingDecidedProxyAwait() throws Exception {
    Path config = tmp.resolve("config.yaml");
    Files.writeString(config, "mesh: istio\n");
    String pod =
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: checkout
          namespace: shop
          annotations:
            proxy.istio.io/config: '{"holdApplicationUntilProxyStarts": false}'
        spec:
          nodeSelector: {pool: rhel}
          containers:
            - {name: checkout, image: ghcr.io/example/checkout:1.4.2}
        """;
    Cli.Run run =
        Cli.runWithStdin(
            pod,
            "explain",
            "-f",
            "-",
            "-o",
            "json",
            "--cluster",
            InjectCommandTest.CLUSTER,
            "--config",
            config.toString());
    assertThat(run.code()).as(run.err()).isZero();
    JsonNode decision = new ObjectMapper().readTree(run.out()).get(0);
    assertThat(decision.path("proxyAwait").asBoolean(true)).isFalse();
    assertThat(decision.path("trace").toString())
        .contains("proxy.istio.io/config holdApplicationUntilProxyStarts: false")
        .contains("over mesh-injector.io/proxy-await");
  }
}
