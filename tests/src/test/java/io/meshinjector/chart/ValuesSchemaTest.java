package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * values.schema.json: Helm refuses bad values before rendering, in lint and in template alike, with
 * a message that names the key; the good values still render.
 */
class ValuesSchemaTest {
  @TempDir Path tmp;

  static Stream<Arguments> badValues() {
    return Stream.of(
        Arguments.of("replicaCount", "-1", "/replicaCount"),
        Arguments.of("replicaCount", "two", "/replicaCount"),
        Arguments.of("admissionWebhook.failurePolicy", "Retry", "/admissionWebhook/failurePolicy"),
        Arguments.of("admissionWebhook.timeoutSeconds", "31", "/admissionWebhook/timeoutSeconds"),
        Arguments.of("config.policy.mixedNodes", "spread", "/config/policy/mixedNodes"),
        Arguments.of("config.policy.noViablePath", "allow", "/config/policy/noViablePath"),
        Arguments.of("config.policy.pinCni", "sometimes", "/config/policy/pinCni"),
        Arguments.of("config.policy.preference[0]", "init/iptables", "/config/policy/preference/0"),
        Arguments.of("config.policy.publishLabels", "maybe", "/config/policy/publishLabels"),
        Arguments.of("config.policy.runToCompletion", "wait", "/config/policy/runToCompletion"),
        Arguments.of("tls.mode", "manual", "/tls/mode"),
        Arguments.of("tls.selfManaged.certValidityDays", "0", "/tls/selfManaged/certValidityDays"),
        Arguments.of("config.webhook.port", "70000", "/config/webhook/port"),
        Arguments.of("shutdown.drainSeconds", "-5", "/shutdown/drainSeconds"),
        Arguments.of("probe.interval", "often", "/probe/interval"),
        Arguments.of("probe.activeCheck.enabled", "sometimes", "/probe/activeCheck/enabled"),
        Arguments.of("image.pullPolicy", "Sometimes", "/image/pullPolicy"),
        Arguments.of("revision", "7", "/revision"),
        Arguments.of("routing.namespaceLabels", "sometimes", "/routing/namespaceLabels"),
        Arguments.of("routing.createDefaultTag", "maybe", "/routing/createDefaultTag"));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("badValues")
  void templateRefusesNamingTheKey(String key, String value, String pointer) {
    assertThatThrownBy(() -> render(t -> t.set(key, value)))
        .hasMessageContaining("values don't meet the specifications of the schema")
        .hasMessageContaining(pointer);
  }

  @ParameterizedTest(name = "lint {0}={1}")
  @MethodSource("badValues")
  void lintRefusesNamingTheKey(String key, String value, String pointer) throws IOException {
    if (key.contains("[")) {
      return; // a list item: covered by template above; the copy below sets whole maps only
    }
    // helm-java's lint takes no --set: the value goes into a copy's values.yaml
    Path chart = copyWith(key, value);
    LintResult result = new Helm(chart).lint().call();
    assertThat(result.isFailed()).as(key + "=" + value).isTrue();
    assertThat(String.join("\n", result.getMessages())).contains(pointer);
  }

  private Path copyWith(String key, String value) throws IOException {
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
    ObjectNode root = (ObjectNode) Charts.YAML.readTree(values.toFile());
    ObjectNode at = root;
    String[] parts = key.split("\\.");
    for (int i = 0; i < parts.length - 1; i++) {
      at = (ObjectNode) at.path(parts[i]);
    }
    // as --set reads it: a number or a word
    at.set(parts[parts.length - 1], Charts.YAML.readTree(value));
    Charts.YAML.writeValue(values.toFile(), root);
    return copy;
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("goodValues")
  void goodValuesStillRender(String key, String value) throws IOException {
    assertThat(render(t -> t.set(key, value))).isNotEmpty();
  }

  static Stream<Arguments> goodValues() {
    return Stream.of(
        Arguments.of("replicaCount", "0"),
        Arguments.of("replicaCount", "3"),
        Arguments.of("admissionWebhook.failurePolicy", "Ignore"),
        Arguments.of("config.policy.mixedNodes", "reject"),
        Arguments.of("config.policy.noViablePath", "skip"),
        Arguments.of("config.policy.pinCni", "when-mixed"),
        Arguments.of("config.policy.runToCompletion", "skip"),
        Arguments.of("config.policy.runToCompletion", "inject"),
        Arguments.of("config.policy.preference[0]", "init/plain"),
        Arguments.of("tls.mode", "cert-manager"),
        Arguments.of("shutdown.preStopSeconds", "0"),
        Arguments.of("probe.interval", "90s"),
        Arguments.of("probe.activeCheck.enabled", "true"),
        Arguments.of("revision", "canary"),
        Arguments.of("routing.namespaceLabels", "false"),
        Arguments.of("routing.createDefaultTag", "false"));
  }
}
