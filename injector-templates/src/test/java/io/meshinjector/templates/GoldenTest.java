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

  /**
   * Each input as the CLI writes it back. Before the golden comparison (which {@code
   * -Dgolden.update} turns into a rewrite), each document is checked for itself: every template of
   * an injection holds the proxy and is a valid pod, and a case that injects nothing leaves its
   * documents as they were read.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void renderedDocumentsMatchGolden(Cases.Case c) {
    StringBuilder b = new StringBuilder();
    for (JsonNode in : c.inputs()) {
      JsonNode doc = Injected.document(in, Cases.NO_NAMESPACE, INJECTOR, (w, pod) -> c.decision(w));
      b.append("---\n").append(Fixtures.yaml(doc));
      List<WorkloadTemplates.PodTemplateRef> refs =
          WorkloadTemplates.podTemplates(doc, Cases.NO_NAMESPACE);
      assertThat(refs).as("%s: pod templates", c).isNotEmpty();
      for (WorkloadTemplates.PodTemplateRef ref : refs) {
        Pod pod = Fixtures.assertValidPod(ref.template(), c + " " + ref.workload());
        if (c.injects()) {
          assertThat(Injected.hasContainer(pod, Fixtures.PROXY))
              .as("%s %s injected", c, ref.workload())
              .isTrue();
        }
      }
      if (!c.injects()) {
        assertThat(doc).as("%s: left as read", c).isEqualTo(in);
      }
    }
    Fixtures.golden(c.name() + ".yaml", b.toString());
  }

  /**
   * The operations the webhook sends for each pod: some for every pod of an injection, none for a
   * pod that is not injected, each giving a valid pod when Parsson applies it; then the golden.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void admissionPatchesMatchGolden(Cases.Case c) throws Exception {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    assertThat(pods).as("%s: pods", c).isNotEmpty();
    ArrayNode patches = Fixtures.JSON.createArrayNode();
    for (int i = 0; i < pods.size(); i++) {
      Decision decision = c.decision(workloads.get(i));
      JsonNode received = Fixtures.JSON.valueToTree(pods.get(i));
      PatchResult patch = INJECTOR.patch(received, pods.get(i), decision);
      assertThat(patch.patch().isEmpty())
          .as("%s %s: patch is empty", c, workloads.get(i))
          .isEqualTo(!c.injects());
      Fixtures.assertValidPod(Injected.applied(received, patch), c + " " + workloads.get(i));
      patches.add(patch.patch());
    }
    Fixtures.golden(c.name() + ".patch.json", Fixtures.JSON.writeValueAsString(patches) + "\n");
  }
}
