package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.templates.internal.NodeAffinities;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Injecting an injected pod again changes nothing: the webhook may be called twice. */
class IdempotenceTest {
  private static final PodInjector INJECTOR = Fixtures.injector();

  static Stream<Cases.Case> cases() {
    return Cases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void renderingARenderedPodGivesAnEmptyPatch(Cases.Case c) {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    for (int i = 0; i < pods.size(); i++) {
      Pod once = Injected.pod(INJECTOR, pods.get(i), c.decision(workloads.get(i)));
      if (!c.injects()) {
        // These carry the proxy or linkerd-init already: the first rendering must not touch them.
        assertThat(once).as(workloads.get(i)).isEqualTo(pods.get(i));
      } else {
        assertThat(Injected.hasContainer(once, Fixtures.PROXY)).as(workloads.get(i)).isTrue();
      }
      Pod twice = Injected.pod(INJECTOR, once, c.decision(workloads.get(i)));
      assertThat(Fixtures.patch(INJECTOR, once, c.decision(workloads.get(i))).patch().isEmpty())
          .as(workloads.get(i))
          .isTrue();
      assertThat(twice).isEqualTo(once);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void renderingRenderedWorkloadsChangesNothing(Cases.Case c) {
    for (JsonNode in : c.inputs()) {
      JsonNode doc = Injected.document(in, Cases.NO_NAMESPACE, INJECTOR, (w, pod) -> c.decision(w));
      JsonNode twice =
          Injected.document(doc, Cases.NO_NAMESPACE, INJECTOR, (w, pod) -> c.decision(w));
      JsonNode a = Fixtures.JSON.valueToTree(twice);
      JsonNode b = Fixtures.JSON.valueToTree(doc);
      assertThat(a).isEqualTo(b);
    }
  }

  @Test
  void nodeConstraintIsNotAddedTwice() {
    Pod pod =
        Cases.all()
            .filter(x -> x.name().equals("affinity-native-cni"))
            .findFirst()
            .orElseThrow()
            .pods()
            .get(0);
    PodSpec spec = new PodBuilder(pod).build().getSpec();
    spec.setAffinity(NodeAffinities.required(spec.getAffinity(), Cases.CNI_READY));
    PodSpec again = new PodBuilder().withSpec(spec).build().getSpec();
    again.setAffinity(NodeAffinities.required(again.getAffinity(), Cases.CNI_READY));
    assertThat(again).isEqualTo(spec);
    assertThat(
            spec.getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms())
        .hasSize(2)
        .allSatisfy(t -> assertThat(t.getMatchExpressions()).hasSize(2));
  }
}
