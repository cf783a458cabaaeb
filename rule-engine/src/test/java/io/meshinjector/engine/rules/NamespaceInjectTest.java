package io.meshinjector.engine.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.engine.revisions.RouteResolver;
import io.meshinjector.engine.testing.K8s;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A namespace's inject setting and the name it asks for, in the Istio flavour from its Istio labels
 * too (read as istiod's selectors read them), at the gate and in the route.
 */
class NamespaceInjectTest {
  private static final InjectionConfig ISTIO =
      ConfigLoader.fromYaml("mesh: istio\n").engine().injection();
  private static final InjectionConfig LINKERD = ConfigLoader.defaults().engine().injection();

  private static Namespace ns(String labels, String annotations) {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName("shop")
        .withLabels(pairs(labels))
        .withAnnotations(pairs(annotations))
        .endMetadata()
        .build();
  }

  /** {@code "k=v;k2=v2"}, or null for none. */
  private static Map<String, String> pairs(String s) {
    Map<String, String> out = new HashMap<>();
    if (s != null) {
      for (String kv : s.split(";")) {
        String[] p = kv.split("=", 2);
        out.put(p[0], p.length > 1 ? p[1] : "");
      }
    }
    return out;
  }

  @ParameterizedTest(name = "labels {0}, annotations {1}: istio {2} asks {3}; linkerd {4}")
  @CsvSource(
      nullValues = "-",
      delimiter = '|',
      value = {
        "istio-injection=enabled | - | true | default | false",
        "istio-injection=disabled | - | false | - | false",
        "istio.io/rev=canary | - | true | canary | false",
        "istio.io/rev= | - | - | - | false",
        // both: istio-injection decides, as istiod's selectors do
        "istio-injection=enabled;istio.io/rev=canary | - | true | default | false",
        "istio-injection=disabled;istio.io/rev=canary | - | false | - | false",
        // with the annotations: disabled wins; the label names before mesh-injector.io/rev
        "istio.io/rev=canary | inject=disabled | false | canary | false",
        "istio-injection=disabled | inject=enabled | false | - | true",
        "istio.io/rev=canary | inject=enabled;mesh-injector.io/rev=prod | true | canary | true",
        "- | inject=enabled;mesh-injector.io/rev=prod | true | prod | true",
        "- | - | - | default | false",
      })
  void theIstioLabelsOptInAndNameAsIstiodReadsThem(
      String labels, String annotations, Boolean istio, String asks, boolean linkerd) {
    Namespace ns = ns(labels, annotations);
    assertThat(NamespaceInject.of(ns, ISTIO.meshNamespaceLabels()).map(InjectAnnotation::enabled))
        .isEqualTo(Optional.ofNullable(istio));
    assertThat(NamespaceInject.enabled(ns, ISTIO.meshNamespaceLabels()))
        .isEqualTo(Boolean.TRUE.equals(istio));
    String expected =
        asks != null ? asks : pairs(annotations).getOrDefault("mesh-injector.io/rev", "default");
    assertThat(RouteResolver.of(ISTIO).namespaceAsks(ns).name()).isEqualTo(expected);
    // the Linkerd flavour reads only the annotations, and names only by mesh-injector.io/rev
    assertThat(NamespaceInject.enabled(ns, LINKERD.meshNamespaceLabels())).isEqualTo(linkerd);
    assertThat(RouteResolver.of(LINKERD).namespaceAsks(ns).name())
        .isEqualTo(pairs(annotations).getOrDefault("mesh-injector.io/rev", "default"));
  }

  @Test
  void aPodInANamespaceLabelledForIstioGoesOnPastTheGateAndSaysWhy() {
    Pod pod = K8s.pod("shop", Map.of()).build();
    List<String> trace = new ArrayList<>();
    Optional<Outcome> istio =
        new InjectGate(ISTIO)
            .check(pod, ns("istio-injection=enabled", null), t -> trace.add(t.detail()), w -> {});
    assertThat(istio).isEmpty();
    assertThat(trace).anyMatch(t -> t.contains("label istio-injection: enabled"));
    Optional<Outcome> linkerd =
        new InjectGate(LINKERD).check(pod, ns("istio-injection=enabled", null), t -> {}, w -> {});
    assertThat(linkerd)
        .hasValueSatisfying(
            o -> assertThat(((Outcome.Skip) o).reason()).isEqualTo(SkipReason.NOT_ENABLED));
  }

  @Test
  void anAnnotationAndALabelThatDisagreeSkipThePodWithAWarningNamingBoth() {
    Pod pod = K8s.pod("shop", Map.of()).build();
    List<String> warnings = new ArrayList<>();
    Optional<Outcome> o =
        new InjectGate(ISTIO)
            .check(pod, ns("istio-injection=disabled", "inject=enabled"), t -> {}, warnings::add);
    assertThat(o)
        .hasValueSatisfying(
            x -> assertThat(((Outcome.Skip) x).reason()).isEqualTo(SkipReason.INJECTION_DISABLED));
    assertThat(warnings)
        .singleElement()
        .asString()
        .contains("inject: enabled", "label istio-injection: disabled", "disabled wins");
  }

  @Test
  void bothIstioLabelsOrALabelAgainstTheAnnotationAreConflictsForCheck() {
    assertThat(
            IstioNamespaceLabels.conflicts(
                ns("istio-injection=enabled;istio.io/rev=canary", null), "mesh-injector.io/rev"))
        .singleElement()
        .asString()
        .contains("both istio-injection=enabled and istio.io/rev=canary", "the tag default");
    assertThat(
            IstioNamespaceLabels.conflicts(
                ns("istio.io/rev=canary", "mesh-injector.io/rev=prod"), "mesh-injector.io/rev"))
        .singleElement()
        .asString()
        .contains("names canary", "names prod", "the label wins");
    assertThat(
            IstioNamespaceLabels.conflicts(
                ns("istio.io/rev=canary", "mesh-injector.io/rev=canary"), "mesh-injector.io/rev"))
        .isEmpty();
  }
}
