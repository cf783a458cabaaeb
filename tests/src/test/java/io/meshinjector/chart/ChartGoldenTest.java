package io.meshinjector.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The whole chart's output, compared with reviewed golden files under {@code
 * src/test/resources/chart-golden}, so every change to what a cluster receives shows up in a diff.
 * {@code -Dgolden.update=true} rewrites them. Certificate material is generated afresh on every
 * render and is replaced by a marker; WebhookChartTest checks it.
 */
class ChartGoldenTest {
  static final boolean UPDATE = Boolean.getBoolean("golden.update");
  static final Path GOLDEN_DIR = Path.of("src/test/resources/chart-golden");
  static final String GENERATED = "<generated at render>";
  static final ObjectMapper OUT =
      new ObjectMapper(
              new YAMLFactory()
                  .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                  .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES))
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

  @Test
  void defaultRender() throws IOException {
    golden("default.yaml", t -> t);
  }

  @Test
  void certManagerRender() throws IOException {
    golden("cert-manager.yaml", t -> t.set("tls.mode", "cert-manager"));
  }

  @Test
  void istioRender() throws IOException {
    golden("istio.yaml", t -> t.set("config.mesh", "istio"));
  }

  private static void golden(String file, UnaryOperator<TemplateCommand> options)
      throws IOException {
    List<JsonNode> docs = Charts.render(options);
    StringBuilder out = new StringBuilder();
    for (JsonNode doc : docs) {
      normalise(doc);
      out.append("---\n").append(OUT.writeValueAsString(doc));
    }
    String actual = out.toString();
    Path path = GOLDEN_DIR.resolve(file);
    if (UPDATE || !Files.exists(path)) {
      Files.createDirectories(path.getParent());
      Files.writeString(path, actual);
      assertThat(UPDATE).as("golden file %s was missing and has been written", path).isTrue();
      return;
    }
    assertThat(actual)
        .as("golden %s (run with -Dgolden.update=true to accept)", path)
        .isEqualTo(Files.readString(path));
  }

  private static void normalise(JsonNode doc) {
    String kind = doc.path("kind").asText();
    if (kind.equals("Secret") && doc.path("data").isObject()) {
      ObjectNode data = (ObjectNode) doc.path("data");
      List<String> keys = WebhookChartTest.fieldNames(data);
      keys.forEach(k -> data.put(k, GENERATED));
    }
    if (kind.equals("MutatingWebhookConfiguration")) {
      for (JsonNode webhook : doc.path("webhooks")) {
        JsonNode client = webhook.path("clientConfig");
        if (client.has("caBundle")) {
          ((ObjectNode) client).put("caBundle", GENERATED);
        }
      }
    }
  }
}
