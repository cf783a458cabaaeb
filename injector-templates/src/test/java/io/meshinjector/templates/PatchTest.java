package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigLoader;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonStructure;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every patch, applied by an independent implementation (Eclipse Parsson), gives the rendered pod.
 */
class PatchTest {
  private static final PodInjector INJECTOR = Fixtures.injector();

  static Stream<Cases.Case> cases() {
    return Cases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void parssonAppliesThePatchToTheRenderedPod(Cases.Case c) throws Exception {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    for (int i = 0; i < pods.size(); i++) {
      Pod original = pods.get(i);
      Pod rendered = INJECTOR.render(original, c.decision(workloads.get(i)));
      PatchResult patch = JsonPatches.diff(original, rendered);

      JsonNode applied = applyWithParsson(original, patch.json());

      assertThat(applied)
          .isEqualTo(Fixtures.JSON.readTree(Fixtures.JSON.writeValueAsString(rendered)));
      Pod strict = Fixtures.assertValidPod(applied, c + " " + workloads.get(i));
      assertThat(strict).isEqualTo(rendered);
    }
  }

  /**
   * The diff leaves out of both trees what the rendered pod shares with the original; that must
   * give the patch a diff of the two whole pods gives, operation for operation.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void leavingOutTheSharedPartsGivesThePatchOfTheWholePods(Cases.Case c) {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    for (int i = 0; i < pods.size(); i++) {
      Pod original = pods.get(i);
      Pod rendered = INJECTOR.render(original, c.decision(workloads.get(i)));

      JsonNode whole =
          JsonPatches.diff(
                  (JsonNode) PodInjector.JSON.valueToTree(original),
                  (JsonNode) PodInjector.JSON.valueToTree(rendered))
              .patch();

      assertThat(JsonPatches.diff(original, rendered).patch())
          .as(c + " " + workloads.get(i))
          .isEqualTo(whole);
    }
  }

  /**
   * A rendered pod shares what it does not change with the original and with the cached template
   * renderings: rendering must write into neither. Each pod is rendered twice, the second time
   * after the first result was rendered from, and the original must serialise as before.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void renderingChangesNeitherTheOriginalNorTheNextRendering(Cases.Case c) throws Exception {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    for (int i = 0; i < pods.size(); i++) {
      Pod original = pods.get(i);
      String before = Fixtures.JSON.writeValueAsString(original);
      Pod first = INJECTOR.render(original, c.decision(workloads.get(i)));
      String firstJson = Fixtures.JSON.writeValueAsString(first);
      Pod second = INJECTOR.render(original, c.decision(workloads.get(i)));

      assertThat(Fixtures.JSON.writeValueAsString(original)).isEqualTo(before);
      assertThat(Fixtures.JSON.writeValueAsString(second)).isEqualTo(firstJson);
      assertThat(Fixtures.JSON.writeValueAsString(first)).isEqualTo(firstJson);
    }
  }

  @Test
  void aFieldTypoInATemplateFailsTheStrictCheck() throws Exception {
    // fabric8 keeps the misspelt field in the SecurityContext's additionalProperties and writes it
    // back out, so only a check that looks below the Pod itself can see it.
    String proxy =
        Fixtures.resource("io/meshinjector/templates/proxy.yaml")
            .replace("readOnlyRootFilesystem:", "readOnlyRootFileSystem:");
    String config =
        Fixtures.YAML_OUT.writeValueAsString(Map.of("templates", Map.of("proxy", proxy)));
    PodInjector typo = new PodInjector(TemplateConfig.from(ConfigLoader.fromYaml(config)));
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("pod-container-legacy")).findFirst().orElseThrow();
    Pod original = c.pods().get(0);
    Pod rendered = typo.render(original, c.decision(c.workloads().get(0)));
    JsonNode applied = applyWithParsson(original, JsonPatches.diff(original, rendered).json());

    assertThat(Fixtures.JSON.treeToValue(applied, Pod.class).getAdditionalProperties())
        .as("the Pod's own additionalProperties do not show it")
        .isEmpty();
    assertThatThrownBy(() -> Fixtures.assertValidPod(applied, "typo"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("readOnlyRootFileSystem");

    // The same pod rendered with the template as shipped passes.
    Pod good = INJECTOR.render(original, c.decision(c.workloads().get(0)));
    Fixtures.assertValidPod(Fixtures.JSON.valueToTree(good), "shipped");
  }

  @Test
  void managedFieldsContentIsFreeFormButFieldsAroundItAreNot() throws Exception {
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("affinity-native-cni")).findFirst().orElseThrow();
    ObjectNode pod = Fixtures.JSON.valueToTree(c.pods().get(0));
    assertThat(pod.at("/metadata/managedFields/0/fieldsV1").isEmpty()).isFalse();
    Fixtures.assertValidPod(pod, "with managedFields");

    ((ObjectNode) pod.at("/metadata/managedFields/0")).put("operaton", "Update");
    assertThatThrownBy(() -> Fixtures.assertValidPod(pod, "typo in managedFields"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("operaton");
  }

  @Test
  void annotationKeysWithSlashesAreEscaped() {
    // This pod already has annotations, so ours are added one key at a time.
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("affinity-native-cni")).findFirst().orElseThrow();
    Pod original = c.pods().get(0);
    PatchResult patch =
        JsonPatches.diff(original, INJECTOR.render(original, c.decision(c.workloads().get(0))));
    assertThat(patch.json())
        .contains("\"/metadata/annotations/mesh-injector.io~1decision\"")
        .contains("\"/metadata/labels/linkerd.io~1control-plane-ns\"")
        .doesNotContain("\"/metadata/annotations/mesh-injector.io/decision\"");
  }

  @Test
  void nothingChangedIsAnEmptyPatch() {
    Pod pod = Cases.all().findFirst().orElseThrow().pods().get(0);
    Pod same = INJECTOR.render(pod, Fixtures.skip("emojivoto/Deployment/web"));
    PatchResult patch = JsonPatches.diff(pod, same);
    assertThat(patch.isEmpty()).isTrue();
    assertThat(patch.json()).isEqualTo("[]");
  }

  @Test
  void patchIsRelativeToTheFullOriginalWithManagedFields() throws Exception {
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("affinity-native-cni")).findFirst().orElseThrow();
    Pod original = c.pods().get(0);
    assertThat(original.getMetadata().getManagedFields()).isNotEmpty();
    Pod rendered = INJECTOR.render(original, c.decision(c.workloads().get(0)));
    PatchResult patch = JsonPatches.diff(original, rendered);
    assertThat(patch.json()).doesNotContain("managedFields");
    JsonNode applied = applyWithParsson(original, patch.json());
    assertThat(applied.at("/metadata/managedFields"))
        .isEqualTo(Fixtures.JSON.valueToTree(original).at("/metadata/managedFields"));
  }

  static JsonNode applyWithParsson(Pod original, String patchJson) throws Exception {
    JsonStructure target =
        Json.createReader(new StringReader(Fixtures.JSON.writeValueAsString(original))).read();
    JsonArray ops = Json.createReader(new StringReader(patchJson)).readArray();
    JsonStructure result = Json.createPatch(ops).apply(target);
    return Fixtures.JSON.readTree(result.toString());
  }
}
