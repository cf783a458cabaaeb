package io.meshinjector.webhook.controllers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.engine.revisions.RouteResolver;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which namespaces the leader labels for the fail-closed webhook entries, and with which name. */
class InjectionLabelsTest {
  private static final Revisions.Release RELEASE = new Revisions.Release("mi", "mi", "mi");

  /** Revisions default and canary, the tag default pointing at default, the tag prod at canary. */
  private static final Revisions TWO =
      new Revisions(
          true,
          Map.of("default", RELEASE, "canary", RELEASE),
          Map.of("default", "default", "prod", "canary"));

  /** Revision default only, and no tag: it serves the tag default itself. */
  private static final Revisions NO_TAG = new Revisions(true, Map.of("default", RELEASE), Map.of());

  /** Revision canary only, and no tag yet: nothing serves the tag default. */
  private static final Revisions NOTHING_DEFAULT =
      new Revisions(true, Map.of("canary", RELEASE), Map.of());

  @ParameterizedTest(name = "{0}: inject={1}, mesh-injector.io/inject={2} -> {3}")
  @CsvSource(
      nullValues = "-",
      value = {
        "shop, enabled, -, enabled",
        "shop, -, enabled, enabled",
        "shop, enabled, enabled, enabled",
        // the two spellings disagree: disabled wins, as in the gate
        "shop, enabled, disabled, -",
        "shop, disabled, enabled, -",
        "shop, disabled, -, -",
        "shop, -, -, -",
        "shop, yes, -, -",
        // an excluded namespace is never sent to the fail-closed entry
        "kube-system, enabled, -, -",
      })
  void labelledExactlyWhenTheNamespaceAsksForInjection(
      String name, String bare, String prefixed, String label) {
    Map<String, String> annotations = new HashMap<>();
    if (bare != null) {
      annotations.put("inject", bare);
    }
    if (prefixed != null) {
      annotations.put("mesh-injector.io/inject", prefixed);
    }
    assertThat(wanted(name, annotations, TWO)).isEqualTo(Optional.ofNullable(label));
    // a release that cannot read the cluster's revisions labels as a single release always did
    assertThat(wanted(name, annotations, Revisions.unknown()))
        .isEqualTo(Optional.ofNullable(label));
  }

  @ParameterizedTest(name = "rev={0} over {1} -> {2}")
  @CsvSource(
      nullValues = "-",
      value = {
        // the default tag, under the value the label always had
        "-, two, enabled",
        "default, two, enabled",
        // a revision with entries of its own, and a tag
        "canary, two, canary",
        "prod, two, prod",
        // a name no release serves: labelled, so that the catch-alls refuse its pods by name
        "typo, two, typo",
        // the revision called default serves the tag default itself, under the same value
        "-, no-tag, enabled",
        "default, no-tag, enabled",
        "typo, no-tag, typo",
        // nothing serves the default tag yet: left to the catch-all (fail open), never routed to
        // entries that do not exist
        "-, nothing-default, -",
        "canary, nothing-default, canary",
        // the revisions were not read: every name is labelled as asked
        "canary, unknown, canary",
      })
  void labelledWithTheNameOfItsRoute(String rev, String cluster, String label) {
    Map<String, String> annotations = new HashMap<>(Map.of("inject", "enabled"));
    if (rev != null) {
      annotations.put("mesh-injector.io/rev", rev);
    }
    Revisions revisions =
        switch (cluster) {
          case "two" -> TWO;
          case "no-tag" -> NO_TAG;
          case "nothing-default" -> NOTHING_DEFAULT;
          default -> Revisions.unknown();
        };
    assertThat(wanted("shop", annotations, revisions)).isEqualTo(Optional.ofNullable(label));
  }

  private static Optional<String> wanted(
      String name, Map<String, String> annotations, Revisions revisions) {
    Namespace ns =
        new NamespaceBuilder()
            .withNewMetadata()
            .withName(name)
            .withAnnotations(annotations)
            .endMetadata()
            .build();
    return wanted(ns, LINKERD, revisions);
  }

  private static Optional<String> wanted(
      Namespace ns, InjectionConfig injection, Revisions revisions) {
    return InjectionLabels.wanted(ns, injection, RouteResolver.of(injection), revisions);
  }

  private static final InjectionConfig LINKERD = ConfigLoader.defaults().engine().injection();

  private static final InjectionConfig ISTIO =
      ConfigLoader.fromYaml("mesh: istio\n").engine().injection();

  /**
   * In the Istio flavour a namespace's Istio labels opt it in and name its route, as istiod reads
   * them: istio-injection decides alone, else istio.io/rev; the annotation inject: disabled wins
   * over either, as between its own two spellings. In the Linkerd flavour the labels mean nothing.
   */
  @ParameterizedTest(name = "istio-injection={0}, istio.io/rev={1}, inject={2}, rev={3} -> {4}")
  @CsvSource(
      nullValues = "-",
      value = {
        "enabled, -, -, -, enabled",
        "-, canary, -, -, canary",
        "-, prod, -, -, prod",
        "-, default, -, -, enabled",
        // both labels: istio-injection decides, as istiod's selectors do
        "enabled, canary, -, -, enabled",
        "disabled, canary, -, -, -",
        "disabled, -, enabled, -, -",
        // the label is read before the annotation mesh-injector.io/rev
        "-, canary, -, prod, canary",
        "-, -, enabled, canary, canary",
        "-, canary, disabled, -, -",
        "-, canary, enabled, -, canary",
        // a name no release serves is labelled, so its pods are refused by the catch-alls
        "-, retired, -, -, retired",
        "-, '', -, -, -",
      })
  void inTheIstioFlavourItsLabelsOptInAndChoose(
      String injection, String istioRev, String inject, String rev, String label) {
    Map<String, String> labels = new HashMap<>();
    if (injection != null) {
      labels.put("istio-injection", injection);
    }
    if (istioRev != null) {
      labels.put("istio.io/rev", istioRev);
    }
    Map<String, String> annotations = new HashMap<>();
    if (inject != null) {
      annotations.put("inject", inject);
    }
    if (rev != null) {
      annotations.put("mesh-injector.io/rev", rev);
    }
    Namespace ns =
        new NamespaceBuilder()
            .withNewMetadata()
            .withName("shop")
            .withLabels(labels)
            .withAnnotations(annotations)
            .endMetadata()
            .build();
    assertThat(wanted(ns, ISTIO, TWO)).isEqualTo(Optional.ofNullable(label));
    // the Linkerd flavour reads the annotations only
    Optional<String> byAnnotations =
        "enabled".equals(inject) ? Optional.of(rev == null ? "enabled" : rev) : Optional.empty();
    assertThat(wanted(ns, LINKERD, TWO)).isEqualTo(byAnnotations);
  }
}
