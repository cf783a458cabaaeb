package io.meshinjector.webhook.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
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

  @Test
  void anAliasIsReplacedByTheNodeItNames() {
    List<JsonNode> docs =
        Manifests.parse(
            """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: c
              labels: &labels
                app: shop
              annotations: *labels
            data:
              first: &word hello
              second: *word
            """,
            "test.yaml");

    JsonNode doc = docs.get(0);
    assertThat(doc.path("metadata").path("annotations").toString()).isEqualTo("{\"app\":\"shop\"}");
    assertThat(doc.path("data").path("second").asText()).isEqualTo("hello");
  }

  @Test
  void mergeKeysFollowYaml11ExplicitKeysWinThenEarlierMappings() {
    JsonNode doc =
        Manifests.parse(
                """
                base: &base {a: base, b: base, c: base}
                other: &other {b: other, d: other}
                nested: &nested
                  <<: *base
                  e: nested
                m:
                  a: own
                  <<: [*other, *base]
                n:
                  <<: *nested
                """,
                "test.yaml")
            .get(0);

    assertThat(doc.path("m").toString())
        .isEqualTo("{\"a\":\"own\",\"b\":\"other\",\"d\":\"other\",\"c\":\"base\"}");
    assertThat(doc.path("n").toString())
        .isEqualTo("{\"a\":\"base\",\"b\":\"base\",\"c\":\"base\",\"e\":\"nested\"}");
    // a quoted "<<" is an ordinary key
    assertThat(Manifests.parse("k:\n  '<<': {a: 1}\n", "t").get(0).path("k").has("<<")).isTrue();
  }

  @Test
  void aliasesThatCannotBeExpandedAreErrorsWithTheirPlace() {
    assertThatThrownBy(() -> Manifests.parse("kind: Pod\nspec: &s\n  x: *s\n", "loop.yaml"))
        .isInstanceOf(ManifestException.class)
        .hasMessageStartingWith("loop.yaml: not valid YAML at line 2, column 7: ")
        .hasMessageContaining("alias to itself");
    assertThatThrownBy(() -> Manifests.parse("kind: Pod\nspec: *nowhere\n", "undefined.yaml"))
        .hasMessageStartingWith("undefined.yaml: not valid YAML at line 2, column 7: ")
        .hasMessageContaining("nowhere");
    assertThatThrownBy(() -> Manifests.parse("kind: Pod\nspec:\n  <<: [1]\n", "merge.yaml"))
        .hasMessageStartingWith("merge.yaml: not valid YAML at line 3, column 8: ")
        .hasMessageContaining("merge key");
  }

  @Test
  void aliasesThatExpandPastTheBudgetAreRefused() {
    StringBuilder laughs = new StringBuilder("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int i = 1; i < 10; i++) {
      laughs.append("a").append(i).append(": &a").append(i).append(" [");
      for (int j = 0; j < 8; j++) {
        laughs.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
      }
      laughs.append("]\n");
    }

    assertThatThrownBy(() -> Manifests.parse(laughs.toString(), "laughs.yaml"))
        .isInstanceOf(ManifestException.class)
        .hasMessageContaining("laughs.yaml: not valid YAML at line ")
        .hasMessageContaining("expand to more than");
  }

  @Test
  void aLongFileBuysNoBiggerAliasExpansion() {
    // 8^7 (about 2.1 million) nodes from aliases, in a file made 1.2 MB long by a comment
    StringBuilder yaml = new StringBuilder("# " + "x".repeat(1_200_000) + "\n");
    yaml.append("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int i = 1; i < 7; i++) {
      yaml.append("a").append(i).append(": &a").append(i).append(" [");
      for (int j = 0; j < 8; j++) {
        yaml.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
      }
      yaml.append("]\n");
    }

    assertThatThrownBy(() -> Manifests.parse(yaml.toString(), "long.yaml"))
        .isInstanceOf(ManifestException.class)
        .hasMessageContaining("expand to more than");
  }

  @Test
  void aFileInFlowStyleIsYamlNotBrokenJson() {
    List<JsonNode> docs =
        Manifests.parse(
            "{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: []}}\n",
            "flow.yaml");

    assertThat(docs).hasSize(1);
    assertThat(docs.get(0).path("metadata").path("name").asText()).isEqualTo("p");
  }

  @Test
  void brokenInputStartingWithABraceGetsTheErrorOfTheFormatItWasMeantToBe() {
    // JSON that gets far before it breaks: the JSON error, placed
    assertThatThrownBy(
            () ->
                Manifests.parse(
                    "{\"apiVersion\": \"v1\",\n \"metadata\": {\"name\": \"p\" \"x\": 1}}\n",
                    "broken.json"))
        .hasMessageStartingWith("broken.json: not valid JSON at line 2, column 27: ")
        .hasMessageContaining("comma");
    // flow YAML: the JSON reader stops at its first unquoted key, the YAML one much later
    assertThatThrownBy(
            () ->
                Manifests.parse("{apiVersion: v1, kind: Pod,\n metadata: {name: [p}}\n", "b.yaml"))
        .hasMessageStartingWith("b.yaml: not valid YAML at line 2, column 21: ");
  }

  @Test
  void aSyntaxErrorNamesTheFileLineAndColumn() {
    assertThatThrownBy(
            () ->
                Manifests.parse(
                    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [a, b\nspec: {}\n", "pod.yaml"))
        .isInstanceOf(ManifestException.class)
        .hasMessage(
            "pod.yaml: not valid YAML at line 5, column 5: expected ',' or ']', but got : (while"
                + " parsing a flow sequence that starts at line 4, column 9)");
    assertThatThrownBy(() -> Manifests.parse("a: b\n---\nkind: \"open\n", "two.yaml"))
        .hasMessageStartingWith("two.yaml: not valid YAML at line 4, column 1: ");
  }

  /**
   * SnakeYAML fails such an escape with a NumberFormatException, not a YAML error (found by
   * fuzzing).
   */
  @Test
  void anEscapeCutOffAtTheEndOfTheFileIsAYamlError() {
    for (String escape : new String[] {"\\x", "\\u", "\\U"}) {
      assertThatThrownBy(() -> Manifests.parse("kind: \"Pod" + escape, "cut.yaml"))
          .as(escape)
          .isInstanceOf(ManifestException.class)
          .hasMessageStartingWith("cut.yaml: not valid YAML")
          .hasMessageContaining("escape before its hex digits");
    }
  }

  @Test
  void aDocumentThatIsNotAnObjectIsNamedWithItsLine() {
    assertThatThrownBy(() -> Manifests.parse("kind: Pod\n---\n- a\n", "list.yaml"))
        .hasMessage("list.yaml: document 2 (line 3) is a array, not a Kubernetes object");
  }

  /**
   * Aliases are expanded by replaying SnakeYAML's composed documents into Jackson's parser; a file
   * without any must still read exactly as Jackson reads it directly.
   */
  @Test
  void scalarsAreTypedAsJacksonsYamlParserTypesThem() throws Exception {
    String yaml =
        """
        ints: [0, -7, +12, 0x1F, 0755, 0b101, 1_000, 12345678901234567890]
        floats: [1.5, 1e3, -2.5e-3, 6.02e+23]
        bools: [true, False, yes, no, on, OFF]
        nulls: [~, null, ]
        strings: ["0x1F", '1e3', 2024-01-01, 190:20:30, nginx:1.25, "", !!str 42]
        tagged: [!!int "42", !!float "1", !!bool "true", !custom text]
        empty:
        block: |
          two
          lines
        ---
        ---
        second: document
        """;
    ObjectMapper jackson =
        new ObjectMapper(
            YAMLFactory.builder().enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL).build());
    List<JsonNode> direct = jackson.readerFor(JsonNode.class).<JsonNode>readValues(yaml).readAll();

    assertThat(Manifests.parse(yaml, "scalars.yaml"))
        .containsExactlyElementsOf(direct.stream().filter(JsonNode::isObject).toList());
  }

  @Test
  void theExampleManifestsReadAsJacksonReadsThem() throws Exception {
    ObjectMapper jackson =
        new ObjectMapper(
            YAMLFactory.builder().enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL).build());
    for (String name : List.of("every-kind.yaml", "refused.yaml", "unknown-namespace.yaml")) {
      String yaml = Files.readString(manifest(name));
      List<JsonNode> direct =
          jackson.readerFor(JsonNode.class).<JsonNode>readValues(yaml).readAll();
      assertThat(Manifests.parse(yaml, name))
          .as(name)
          .containsExactlyElementsOf(direct.stream().filter(JsonNode::isObject).toList());
    }
  }

  private static Path manifest(String name) throws URISyntaxException {
    return Path.of(ManifestsTest.class.getResource("/manifests/" + name).toURI());
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
