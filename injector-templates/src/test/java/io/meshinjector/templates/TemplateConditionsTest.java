package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.templates.internal.Template;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code $if} with {@code &&}, {@code ||} and {@code name=text}, which the Istio templates use. */
class TemplateConditionsTest {
  private static JsonNode render(String yaml, Map<String, JsonNode> values) {
    return Template.parse("t", yaml).render(values::get);
  }

  private static final String T =
      "a: {$if: 'x && !y', v: 1}\n"
          + "b: {$if: 'x || y', v: 2}\n"
          + "c: {$if: 'mode=nft && x', v: 3}\n"
          + "l: [{$if: 'mode=legacy || y', $items: [p, q]}, r]\n";

  @Test
  void conjunctionsDisjunctionsAndComparisons() {
    JsonNode both =
        render(
            T,
            Map.of("x", BooleanNode.TRUE, "y", BooleanNode.TRUE, "mode", TextNode.valueOf("nft")));
    assertThat(both.has("a")).isFalse();
    assertThat(both.has("b")).isTrue();
    assertThat(both.at("/c/v").asInt()).isEqualTo(3);
    assertThat(both.get("l").toString()).isEqualTo("[\"p\",\"q\",\"r\"]");

    JsonNode onlyX =
        render(
            T,
            Map.of(
                "x", BooleanNode.TRUE, "y", BooleanNode.FALSE, "mode", TextNode.valueOf("legacy")));
    assertThat(onlyX.at("/a/v").asInt()).isEqualTo(1);
    assertThat(onlyX.has("c")).isFalse();
    assertThat(onlyX.get("l").toString()).isEqualTo("[\"p\",\"q\",\"r\"]");

    JsonNode none =
        render(
            T,
            Map.of(
                "x", BooleanNode.FALSE, "y", BooleanNode.FALSE, "mode", TextNode.valueOf("plain")));
    assertThat(none.fieldNames()).toIterable().containsExactly("l");
    assertThat(none.get("l").toString()).isEqualTo("[\"r\"]");
  }

  @Test
  void everyNameOfAConditionIsAValueTheTemplateNeeds() {
    assertThat(Template.parse("t", T).names()).containsExactlyInAnyOrder("x", "y", "mode");
  }

  @Test
  void aPodValueDefaultNamingNoValueIsRefusedAtLoad() {
    assertThatThrownBy(
            () ->
                TemplateConfig.from(
                    ConfigLoader.fromYaml(
                        "injection: {podValues: {x: {from: ['label:a'], default: '$"
                            + "{nope}', pattern: '.*'}}}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("injection.podValues.x")
        .hasMessageContaining("nope");
  }

  @Test
  void istioTemplatesLoadAndNameOnlyKnownValues() {
    TemplateConfig c = TemplateConfig.from(ConfigLoader.fromYaml("mesh: istio\n"));
    assertThat(c.proxyContainerName()).isEqualTo("istio-proxy");
    assertThat(c.templates().proxyInit().tree().get("name").asText()).isEqualTo("istio-init");
    assertThat(c.templates().validator().tree().get("name").asText()).isEqualTo("istio-validation");
    assertThat(c.renderValues()).contains("pod.value.includeOutboundIPRanges");
  }
}
