package io.meshinjector.engine.revisions;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.meshinjector.engine.config.InjectionConfig.MeshNamespaceLabels;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a revision does with an opted-in pod its catch-all entry brought: the table of
 * docs/upgrades.md. Revisions stable and canary; tag default points at stable, tag prod at canary.
 */
class UnroutedTest {
  private static final Revisions CLUSTER =
      new Revisions(
          true,
          Map.of(
              "stable", new Revisions.Release("mi-stable", "stable", "stable-mesh-injector"),
              "canary", new Revisions.Release("mi-canary", "canary", "canary-mesh-injector")),
          Map.of("default", "stable", "prod", "canary"));

  private final RouteResolver resolver = new RouteResolver(MeshNamespaceLabels.NONE);

  @ParameterizedTest(name = "label={0} ns rev={1} pod rev={2}: {3} -> {4}")
  @CsvSource(
      nullValues = "-",
      value = {
        // unlabelled (annotated a moment ago): routed by the names, injected by their revision only
        "-, -, -, stable, mine",
        "-, -, -, canary, elsewhere",
        "-, canary, -, canary, mine",
        "-, canary, -, stable, elsewhere",
        "-, prod, -, canary, mine",
        "-, canary, stable, stable, mine",
        "-, canary, default, stable, mine",
        "-, -, typo, stable, refused",
        "-, typo, -, stable, refused",
        "-, typo, canary, canary, mine",
        // labelled: the same, since the API server may not have seen the label when it chose the
        // catch-all (a route's own entry to the same revision then finds the pod injected); a name
        // no one serves is refused
        "enabled, -, -, stable, mine",
        "enabled, -, -, canary, elsewhere",
        "canary, canary, -, canary, mine",
        "prod, prod, -, stable, elsewhere",
        "typo, typo, -, stable, refused",
        "typo, typo, -, canary, refused",
        // the pod's own rev in a labelled namespace wins, or it is refused
        "enabled, -, canary, canary, mine",
        "enabled, -, canary, stable, elsewhere",
        "enabled, -, typo, stable, refused",
        "canary, canary, Not-A-Name, stable, refused",
      })
  void judged(String label, String nsRev, String podRev, String self, String expected) {
    Map<String, String> pod = new HashMap<>();
    if (podRev != null) {
      pod.put(RevisionNames.REV, podRev);
    }
    Unrouted judged = resolver.unrouted(pod, namespace(label, nsRev), CLUSTER, self);
    assertThat(kind(judged)).isEqualTo(expected);
  }

  @Test
  void aRefusalNamesTheMissingRevisionAndWhatIsServed() {
    Unrouted judged =
        resolver.unrouted(
            Map.of(RevisionNames.REV, "typo"), namespace(null, null), CLUSTER, "stable");
    assertThat(judged).isInstanceOf(Unrouted.Refused.class);
    assertThat(((Unrouted.Refused) judged).route().describe())
        .contains("the pod's mesh-injector.io/rev names revision typo")
        .contains("canary, stable")
        .contains("tags: default, prod");
  }

  @Test
  void aTagWhoseRevisionIsGoneIsRefusedNamingBoth() {
    Revisions orphan =
        new Revisions(
            true,
            Map.of("stable", new Revisions.Release("mi", "stable", "stable")),
            Map.of("default", "stable", "prod", "retired"));
    Route route = resolver.resolveName("prod", "the pod's mesh-injector.io/rev", orphan, "stable");
    assertThat(route.describe()).contains("tag prod").contains("revision retired");
  }

  @Test
  void theDefaultTagFallsBackToTheRevisionCalledDefaultWhileNoTagExists() {
    Revisions single =
        new Revisions(true, Map.of("default", new Revisions.Release("mi", "mi", "mi")), Map.of());
    assertThat(resolver.unrouted(Map.of(), namespace(null, null), single, "default"))
        .isInstanceOf(Unrouted.Mine.class);
    // and with no release of that name, nothing serves it: refused, not created bare
    Revisions canaryOnly =
        new Revisions(true, Map.of("canary", new Revisions.Release("mi", "c", "c")), Map.of());
    assertThat(resolver.unrouted(Map.of(), namespace(null, null), canaryOnly, "canary"))
        .isInstanceOf(Unrouted.Refused.class);
  }

  @Test
  void withTheRevisionsUnreadEveryPodIsThisRevisions() {
    assertThat(
            resolver.unrouted(
                Map.of(RevisionNames.REV, "anything"),
                namespace(null, null),
                Revisions.unknown(),
                "stable"))
        .isInstanceOf(Unrouted.Mine.class);
  }

  private static String kind(Unrouted u) {
    if (u instanceof Unrouted.Mine) {
      return "mine";
    }
    return u instanceof Unrouted.Elsewhere ? "elsewhere" : "refused";
  }

  private static Namespace namespace(String label, String rev) {
    NamespaceBuilder b = new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata();
    Map<String, String> annotations = new HashMap<>(Map.of("inject", "enabled"));
    if (rev != null) {
      annotations.put(RevisionNames.REV, rev);
    }
    b.editMetadata().withAnnotations(annotations).endMetadata();
    if (label != null) {
      b.editMetadata().withLabels(Map.of(RevisionNames.ROUTE_LABEL, label)).endMetadata();
    }
    return b.build();
  }
}
