package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.meshinjector.templates.internal.Template;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code $else}, {@code $merge} and {@code $each}, which the Istio templates use. */
class TemplateStructuresTest {
  private static JsonNode render(String yaml, Map<String, JsonNode> values) {
    Map<String, JsonNode> v = new HashMap<>(values);
    return Template.parse("t", yaml).render(v::get);
  }

  private static JsonNode json(String text) throws Exception {
    return Fixtures.JSON.readTree(text);
  }

  @Test
  void elseIsWhatAFailedConditionRendersInsteadOfNothing() throws Exception {
    String t = "r: {$if: cpu, $else: '${fallback}', requests: {cpu: '${cpu}'}}\n";
    JsonNode fallback = json("{\"limits\":{\"cpu\":\"2\"}}");
    assertThat(render(t, Map.of("cpu", TextNode.valueOf("1"), "fallback", fallback)))
        .isEqualTo(json("{\"r\":{\"requests\":{\"cpu\":\"1\"}}}"));
    assertThat(render(t, Map.of("cpu", TextNode.valueOf(""), "fallback", fallback)))
        .isEqualTo(json("{\"r\":{\"limits\":{\"cpu\":\"2\"}}}"));
  }

  @Test
  void mergeJoinsItsEntriesIntoTheMapAroundItOrNoneOfThem() throws Exception {
    String t = "a: 1\n$merge-x: {$if: show, b: '${b}', c: '${c}'}\nd: 4\n";
    assertThat(
            render(
                t,
                Map.of(
                    "show",
                    BooleanNode.TRUE,
                    "b",
                    TextNode.valueOf("2"),
                    "c",
                    TextNode.valueOf(""))))
        .isEqualTo(json("{\"a\":1,\"b\":\"2\",\"d\":4}"));
    assertThat(
            render(
                t,
                Map.of(
                    "show",
                    BooleanNode.FALSE,
                    "b",
                    TextNode.valueOf("2"),
                    "c",
                    TextNode.valueOf(""))))
        .isEqualTo(json("{\"a\":1,\"d\":4}"));
  }

  @Test
  void eachRendersOncePerEntryInKeyOrderAndAnEmptyListIsLeftOut() throws Exception {
    String t = "env:\n- $each: meta\n  name: '${key}'\n  value: '${value}'\nother: [x]\n";
    assertThat(render(t, Map.of("meta", json("{\"ZED\":\"z\",\"FOO\":\"bar\",\"N\":1}"))))
        .isEqualTo(
            json(
                "{\"env\":[{\"name\":\"FOO\",\"value\":\"bar\"},{\"name\":\"N\",\"value\":\"1\"},"
                    + "{\"name\":\"ZED\",\"value\":\"z\"}],\"other\":[\"x\"]}"));
    assertThat(render(t, Map.of("meta", MissingNode.getInstance())))
        .isEqualTo(json("{\"other\":[\"x\"]}"));
  }

  @Test
  void eachsKeyAndValueAreNoValuesTheTemplateNeeds() {
    Template t = Template.parse("t", "- $each: meta\n  name: '${key}'\n  value: '${value}'\n");
    assertThat(t.names()).containsExactly("meta");
  }
}
