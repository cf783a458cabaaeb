package io.meshinjector.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.StreamSupport;

/** Renders the chart with Helm itself and reads the result as Kubernetes objects. */
final class Charts {
  static final Path CHART = chart();
  static final String RELEASE = "mi";
  static final String NS = "mesh-system";
  static final String FULLNAME = "mi-mesh-injector";
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** The values file every rendering gets, unless a test leaves it out on purpose. */
  static final Path TRUST_ANCHORS = resource("chart/trust-anchors.yaml");

  private Charts() {}

  private static Path resource(String name) {
    try {
      return Path.of(Charts.class.getClassLoader().getResource(name).toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path chart() {
    for (Path p : List.of(Path.of("../helm/mesh-injector"), Path.of("helm/mesh-injector"))) {
      if (Files.isRegularFile(p.resolve("Chart.yaml"))) {
        return p.toAbsolutePath().normalize();
      }
    }
    throw new IllegalStateException(
        "chart helm/mesh-injector not found from " + Path.of("").toAbsolutePath());
  }

  static String renderText(UnaryOperator<TemplateCommand> options) {
    return renderText(CHART, options);
  }

  /** Renders {@code chart}, a copy of the chart when values.yaml itself is under test. */
  static String renderText(Path chart, UnaryOperator<TemplateCommand> options) {
    return renderWithoutTrustAnchors(chart, t -> options.apply(t.withValuesFile(TRUST_ANCHORS)));
  }

  /** As a user who left out the one required value: config.proxy.trustAnchorsPEM. */
  static String renderWithoutTrustAnchors(Path chart, UnaryOperator<TemplateCommand> options) {
    FakeKubeApi.get();
    return options
        .apply(
            new Helm(chart)
                .template()
                .withName(RELEASE)
                .withNamespace(NS)
                .withKubeVersion("1.31.0"))
        .call();
  }

  static List<JsonNode> render(UnaryOperator<TemplateCommand> options) throws IOException {
    return parse(renderText(options));
  }

  static List<JsonNode> parse(String yaml) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(yaml)) {
      while (it.hasNext()) {
        JsonNode doc = it.next();
        if (doc != null && doc.isObject() && doc.has("kind")) {
          docs.add(doc);
        }
      }
    }
    return docs;
  }

  static JsonNode find(List<JsonNode> docs, String kind, String name) {
    return docs.stream()
        .filter(d -> d.path("kind").asText().equals(kind))
        .filter(d -> d.path("metadata").path("name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + names(docs)));
  }

  static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
    return docs.stream().filter(d -> d.path("kind").asText().equals(kind)).toList();
  }

  static List<String> names(List<JsonNode> docs) {
    return docs.stream()
        .map(d -> d.path("kind").asText() + "/" + d.path("metadata").path("name").asText())
        .toList();
  }

  /** Objects of one component, by the app.kubernetes.io/component label. */
  static Predicate<JsonNode> component(String component) {
    return d -> d.at("/metadata/labels/app.kubernetes.io~1component").asText().equals(component);
  }

  static List<String> texts(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
  }
}
