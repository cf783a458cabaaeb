package io.meshinjector.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code helm lint --strict} on the default values and on each set a platform team is expected to
 * choose. helm-java's lint takes no {@code --set}, so each set is merged into the values.yaml of a
 * copy of the chart, and that copy is linted.
 */
class ChartLintTest {
  @TempDir Path tmp;

  static Stream<Arguments> valueSets() {
    return Stream.of(
        Arguments.of("defaults", "{}"),
        Arguments.of("cert-manager", "tls: {mode: cert-manager}"),
        Arguments.of(
            "existing Secret", "tls: {mode: secret, secretName: corp-webhook-tls, caBundle: eA==}"),
        Arguments.of("node-prep, nft modules", "nodePrep: {enabled: true, mode: nft}"),
        Arguments.of(
            "no probe, no CRD, no PDB, one replica",
            "{probe: {enabled: false}, installCRDs: false, replicaCount: 1,"
                + " podDisruptionBudget: {enabled: false}}"),
        Arguments.of("Istio", "config: {mesh: istio}"),
        Arguments.of(
            "ServiceMonitor, JSON logs",
            "{metrics: {serviceMonitor: {enabled: true}}, config: {webhook: {logFormat: json}}}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void lintsCleanWith(String name, String overrides) throws IOException {
    Path chart = copyWithValues(Charts.YAML.readTree(overrides));

    LintResult result = new Helm(chart).lint().strict().call();

    assertThat(result.isFailed())
        .as(name + ": " + String.join("\n", result.getMessages()))
        .isFalse();
    // lint lets a template's `fail` pass (it only logs it), so the set must also render
    List<JsonNode> docs = Charts.parse(Charts.renderText(chart, t -> t));
    assertThat(Charts.ofKind(docs, "Deployment")).as(name).hasSize(1);
  }

  private Path copyWithValues(JsonNode overrides) throws IOException {
    Path copy = tmp.resolve("mesh-injector");
    try (Stream<Path> files = Files.walk(Charts.CHART)) {
      for (Path from : files.toList()) {
        Path to = copy.resolve(Charts.CHART.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to);
        }
      }
    }
    Path values = copy.resolve("values.yaml");
    ObjectNode merged = (ObjectNode) Charts.YAML.readTree(values.toFile());
    // the one required value, as a user installing the chart gives it
    merge(merged, Charts.YAML.readTree(Charts.TRUST_ANCHORS.toFile()));
    merge(merged, overrides);
    Charts.YAML.writeValue(values.toFile(), merged);
    return copy;
  }

  /** Helm's own rule for values files: maps merge key by key, anything else replaces. */
  private static void merge(ObjectNode into, JsonNode from) {
    for (Iterator<Map.Entry<String, JsonNode>> it = from.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode existing = into.get(e.getKey());
      if (existing instanceof ObjectNode target && e.getValue().isObject()) {
        merge(target, e.getValue());
      } else {
        into.set(e.getKey(), e.getValue());
      }
    }
  }
}
