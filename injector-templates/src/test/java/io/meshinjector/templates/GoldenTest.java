package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.Decision;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rendered documents and the admission patch of every case, against golden files under {@code
 * src/test/resources/golden}; {@code -Dgolden.update=true} rewrites them.
 */
class GoldenTest {
  private static final PodInjector INJECTOR = Fixtures.injector();

  static Stream<Cases.Case> cases() {
    return Cases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void renderedDocumentsMatchGolden(Cases.Case c) {
    List<JsonNode> out = c.render(INJECTOR);
    StringBuilder b = new StringBuilder();
    for (JsonNode doc : out) {
      b.append("---\n").append(Fixtures.yaml(doc));
      for (WorkloadTemplates.PodTemplateRef ref :
          WorkloadTemplates.podTemplates(doc, Cases.NO_NAMESPACE)) {
        Fixtures.assertValidPod(ref.template(), c + " " + ref.workload());
      }
    }
    assertThat(out).hasSameSizeAs(c.inputs());
    Fixtures.golden(c.name() + ".yaml", b.toString());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void admissionPatchesMatchGolden(Cases.Case c) throws Exception {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    ArrayNode patches = Fixtures.JSON.createArrayNode();
    for (int i = 0; i < pods.size(); i++) {
      Decision decision = c.decision(workloads.get(i));
      Pod rendered = INJECTOR.render(pods.get(i), decision);
      Fixtures.assertValidPod(Fixtures.JSON.valueToTree(rendered), c + " " + workloads.get(i));
      patches.add(Fixtures.patch(INJECTOR, pods.get(i), decision).patch());
    }
    assertThat(patches).isNotEmpty();
    Fixtures.golden(c.name() + ".patch.json", Fixtures.JSON.writeValueAsString(patches) + "\n");
  }
}
