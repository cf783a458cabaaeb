package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonStructure;
import java.io.StringReader;
import java.util.List;
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
      Pod strict = Fixtures.STRICT.treeToValue(applied, Pod.class);
      assertThat(strict).isEqualTo(rendered);
      assertThat(strict.getAdditionalProperties()).isEmpty();
    }
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
