package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.meshinjector.templates.internal.NodeAffinities;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine's constraint narrows where a pod may run and never widens it. */
class NodeAffinitiesTest {
  private static final NodeSelectorRequirement ZONE_A =
      new NodeSelectorRequirement("topology.kubernetes.io/zone", "In", List.of("a"));

  @Test
  void aPodWithoutRequiredAffinityGetsOneTermWithTheConstraint() {
    PodSpec spec = new PodSpecBuilder().build();

    spec.setAffinity(NodeAffinities.required(spec.getAffinity(), Cases.CNI_READY));

    assertThat(terms(spec)).hasSize(1);
    assertThat(terms(spec).get(0).getMatchExpressions())
        .extracting(NodeSelectorRequirement::getKey)
        .containsExactly("capability.mesh-injector.io/cni");
  }

  @Test
  void theConstraintIsAndedIntoEveryTermThatMatchesSomething() {
    PodSpec spec = withTerms(termWith(ZONE_A), termWith(ZONE_A));

    spec.setAffinity(NodeAffinities.required(spec.getAffinity(), Cases.CNI_READY));

    assertThat(terms(spec))
        .allSatisfy(t -> assertThat(t.getMatchExpressions()).hasSize(2).contains(ZONE_A));
  }

  @Test
  void anEmptyTermMatchesNoNodeAndStaysEmpty() {
    // with the constraint in it, the empty term would let the pod onto every cni-ready node,
    // including those outside zone a that the pod's own first term keeps it off
    PodSpec spec = withTerms(termWith(ZONE_A), new NodeSelectorTerm());

    spec.setAffinity(NodeAffinities.required(spec.getAffinity(), Cases.CNI_READY));

    assertThat(terms(spec).get(0).getMatchExpressions()).hasSize(2);
    assertThat(terms(spec).get(1).getMatchExpressions()).isNullOrEmpty();
    assertThat(terms(spec).get(1).getMatchFields()).isNullOrEmpty();
  }

  private static NodeSelectorTerm termWith(NodeSelectorRequirement r) {
    return new NodeSelectorTermBuilder().addToMatchExpressions(r).build();
  }

  private static PodSpec withTerms(NodeSelectorTerm... terms) {
    return new PodSpecBuilder()
        .withNewAffinity()
        .withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withNodeSelectorTerms(terms)
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .endAffinity()
        .build();
  }

  private static List<NodeSelectorTerm> terms(PodSpec spec) {
    return spec.getAffinity()
        .getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms();
  }
}
