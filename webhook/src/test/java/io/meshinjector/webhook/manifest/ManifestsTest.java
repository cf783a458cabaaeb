package io.meshinjector.webhook.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

class ManifestsTest {
  /** Strings a YAML 1.1 reader (kubectl's go-yaml, SnakeYAML) takes for something else. */
  static final List<String> YAML_1_1_LOOK_ALIKES =
      List.of(
          "0x1F",
          "1e3",
          "1_000",
          ".inf",
          "-.Inf",
          ".NaN",
          "0b1010",
          "0755",
          "190:20:30",
          "+12",
          "yes",
          "No",
          "ON",
          "off",
          "y",
          "N",
          "~",
          "null",
          "Null",
          "",
          "true",
          "2024-01-01",
          "2001-12-14t21:59:43.10-05:00",
          "<<",
          "=",
          "1.5",
          "-0",
          "0",
          "8080");

  /** Integers Go's ParseInt reads, which go-yaml tries, but YAML 1.1 has no such prefixes for. */
  static final List<String> GO_ONLY_INTEGERS = List.of("0o17", "0O17", "0X1F", "0B101", "-0o17");

  @Test
  void stringsThatAYaml11ReaderWouldTypeAreQuotedAndReadBackAsStrings() {
    Map<String, String> values = new LinkedHashMap<>();
    for (String s : YAML_1_1_LOOK_ALIKES) {
      values.put("v" + values.size(), s);
    }
    for (String s : GO_ONLY_INTEGERS) {
      values.put("v" + values.size(), s);
    }
    ObjectNode doc = configMap(values);
    // keys are read the same way: kubectl would turn an unquoted on: key into true
    for (String s : YAML_1_1_LOOK_ALIKES) {
      if (!s.isEmpty()) {
        ((ObjectNode) doc.path("data")).put(s, "key " + s);
      }
    }

    String yaml = Manifests.toYaml(List.of(doc));

    // SnakeYAML's default resolver is YAML 1.1's, as kubectl's is
    Map<String, Object> read = new Yaml(new LoaderOptions()).load(yaml);
    @SuppressWarnings("unchecked")
    Map<Object, Object> annotations =
        (Map<Object, Object>) ((Map<String, Object>) read.get("metadata")).get("annotations");
    assertThat(annotations).isEqualTo(new LinkedHashMap<Object, Object>(values));
    @SuppressWarnings("unchecked")
    Map<Object, Object> data = (Map<Object, Object>) read.get("data");
    for (Map.Entry<Object, Object> e : data.entrySet()) {
      assertThat(e.getKey()).as("key of %s", e.getValue()).isInstanceOf(String.class);
      assertThat(e.getValue()).as("value of %s", e.getKey()).isInstanceOf(String.class);
    }
    for (String s : GO_ONLY_INTEGERS) {
      assertThat(yaml).as(s).contains(": \"" + s + "\"\n");
    }
    // and this module reads its own output back to the same tree
    assertThat(Manifests.parse(yaml, "output")).containsExactly(doc);
  }

  @Test
  void plainStringsStayPlain() {
    String yaml =
        Manifests.toYaml(
            List.of(configMap(Map.of("a", "nginx:1.25", "b", "5m", "c", "0.0.0.0:4190"))));

    assertThat(yaml).contains("a: nginx:1.25\n", "b: 5m\n", "c: 0.0.0.0:4190\n");
  }

  private static ObjectNode configMap(Map<String, String> values) {
    ObjectNode doc = Manifests.json().createObjectNode();
    doc.put("apiVersion", "v1").put("kind", "ConfigMap");
    ObjectNode annotations = doc.putObject("metadata").put("name", "c").putObject("annotations");
    ObjectNode data = doc.putObject("data");
    values.forEach(
        (k, v) -> {
          annotations.put(k, v);
          data.put(k, v);
        });
    return doc;
  }
}
