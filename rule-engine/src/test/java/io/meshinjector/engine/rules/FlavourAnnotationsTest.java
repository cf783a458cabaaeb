package io.meshinjector.engine.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.RefusalReason;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.testing.K8s;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The mesh flavour's own annotations at the gate: opt-outs, refusals, pod values' patterns. */
class FlavourAnnotationsTest {
  private static final InjectionConfig ISTIO =
      ConfigLoader.fromYaml("mesh: istio\n").engine().injection();
  private static final InjectionConfig LINKERD = ConfigLoader.defaults().engine().injection();

  private static Optional<Outcome> gate(InjectionConfig c, Map<String, String> annotations) {
    Pod pod = K8s.pod("shop", annotations).build();
    List<TraceStep> trace = new ArrayList<>();
    Optional<Outcome> o = new InjectGate(c).check(pod, K8s.enabled("shop"), trace::add, w -> {});
    o.ifPresent(x -> assertThat(trace).isNotEmpty());
    return o;
  }

  @Test
  void istiosOwnOptOutSkipsThePodEvenInAnEnabledNamespace() {
    assertThat(gate(ISTIO, Map.of("sidecar.istio.io/inject", "false")))
        .hasValueSatisfying(
            o -> {
              assertThat(o).isInstanceOf(Outcome.Skip.class);
              assertThat(((Outcome.Skip) o).reason()).isEqualTo(SkipReason.INJECTION_DISABLED);
            });
    assertThat(gate(ISTIO, Map.of("sidecar.istio.io/inject", "FALSE "))).isPresent();
    // "true" is no opt-in: namespaces and pods enable injection with mesh-injector's annotation
    assertThat(gate(ISTIO, Map.of("sidecar.istio.io/inject", "true"))).isEmpty();
  }

  @Test
  void linkerdFlavourKnowsNoIstioAnnotation() {
    assertThat(gate(LINKERD, Map.of("sidecar.istio.io/inject", "false"))).isEmpty();
    assertThat(gate(LINKERD, Map.of("sidecar.istio.io/proxyImage", "evil/proxy:1"))).isEmpty();
    assertThat(gate(LINKERD, Map.of("sidecar.istio.io/interceptionMode", "TPROXY"))).isEmpty();
  }

  @Test
  void annotationsThatWouldChangeImagesOrPrivilegesAreRefusedNamingTheAnnotation() {
    for (String a :
        List.of(
            "sidecar.istio.io/proxyImageType",
            "sidecar.istio.io/enableCoreDump",
            "sidecar.istio.io/capNetBindService",
            "sidecar.istio.io/userVolume")) {
      assertThat(gate(ISTIO, Map.of(a, "x")))
          .as(a)
          .hasValueSatisfying(
              o -> {
                Outcome.Refuse r = (Outcome.Refuse) o;
                assertThat(r.reason()).isEqualTo(RefusalReason.INVALID_ANNOTATION);
                assertThat(r.message()).contains(a).contains("refused");
              });
    }
  }

  @Test
  void imageAndUserAnnotationsApplyUnlessTheOperatorRefusesThem() {
    assertThat(gate(ISTIO, Map.of("sidecar.istio.io/proxyImage", "my/proxy:1"))).isEmpty();
    assertThat(gate(LINKERD, Map.of("config.linkerd.io/proxy-version", "override"))).isEmpty();
    InjectionConfig istioRefusing =
        ConfigLoader.fromYaml("mesh: istio\ninjection: {imageAndUserOverrides: refuse}\n")
            .engine()
            .injection();
    InjectionConfig linkerdRefusing =
        ConfigLoader.fromYaml("injection: {imageAndUserOverrides: refuse}\n").engine().injection();
    for (var c :
        List.of(
            Map.entry(istioRefusing, "sidecar.istio.io/proxyImage"),
            Map.entry(linkerdRefusing, "config.linkerd.io/proxy-image"),
            Map.entry(linkerdRefusing, "config.linkerd.io/proxy-version"),
            Map.entry(linkerdRefusing, "config.linkerd.io/proxy-uid"),
            Map.entry(linkerdRefusing, "config.linkerd.io/proxy-gid"))) {
      assertThat(gate(c.getKey(), Map.of(c.getValue(), "v9")))
          .as(c.getValue())
          .hasValueSatisfying(
              o ->
                  assertThat(((Outcome.Refuse) o).message())
                      .contains(c.getValue())
                      .contains("'v9'")
                      .contains("injection.imageAndUserOverrides: refuse"));
    }
    // what does not choose an image or user still applies under refuse
    assertThat(gate(linkerdRefusing, Map.of("config.linkerd.io/proxy-log-level", "debug")))
        .isEmpty();
  }

  @Test
  void podValuesOutsideTheirPatternAreRefused() {
    Map<String, String> bad =
        Map.of(
            "sidecar.istio.io/interceptionMode", "TPROXY",
            "traffic.sidecar.istio.io/includeOutboundIPRanges", "10.0.0.0/8 --foo",
            "traffic.sidecar.istio.io/excludeInboundPorts", "80;rm",
            "sidecar.istio.io/logLevel", "loud");
    bad.forEach(
        (k, v) ->
            assertThat(gate(ISTIO, Map.of(k, v)))
                .as(k)
                .hasValueSatisfying(
                    o ->
                        assertThat(((Outcome.Refuse) o).message())
                            .contains("annotation " + k)
                            .contains("'" + v + "'")));
    Map<String, String> good =
        Map.of(
            "sidecar.istio.io/interceptionMode", "REDIRECT",
            "traffic.sidecar.istio.io/includeOutboundIPRanges", "10.0.0.0/8,fd00::/8",
            "traffic.sidecar.istio.io/excludeInboundPorts", "80,443",
            "sidecar.istio.io/logLevel", "debug");
    assertThat(gate(ISTIO, good)).isEmpty();
  }

  /**
   * sidecar.istio.io/proxyImage must be an image reference with a repository path: istiod takes the
   * annotation only when it contains "/" (and silently renders its own image otherwise), so a bare
   * name is refused here rather than ignored; anything that is no reference is refused too.
   */
  @Test
  void aProxyImageThatIsNoImageReferenceWithAPathIsRefused() {
    for (String v :
        List.of(
            "proxyv2:1.28.0",
            "x",
            "",
            "docker.io/istio/proxyv2:1.28.0 --privileged",
            "docker.io/istio/proxyv2:1.28.0\n",
            "docker.io/Istio/ProxyV2:1.28.0",
            "docker.io/istio/proxyv2:",
            "docker.io//proxyv2",
            "docker.io/istio/proxyv2@sha256:abc")) {
      assertThat(gate(ISTIO, Map.of("sidecar.istio.io/proxyImage", v)))
          .as(v)
          .hasValueSatisfying(
              o ->
                  assertThat(((Outcome.Refuse) o).message())
                      .contains("annotation sidecar.istio.io/proxyImage")
                      .contains("'" + v + "'"));
    }
    for (String v :
        List.of(
            "docker.io/istio/proxy2_debug:unittest",
            "gcr.io/istio-testing/proxyv2:latest",
            "istio/proxyv2",
            "localhost:5000/mesh/proxyv2:1.28.0-distroless",
            "registry.example/a/b/c__d/proxy-v2:1.28.0@sha256:"
                + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")) {
      assertThat(gate(ISTIO, Map.of("sidecar.istio.io/proxyImage", v))).as(v).isEmpty();
    }
  }

  @Test
  void theRefusalComesOnlyForPodsThatWouldBeInjected() {
    Pod hostNetwork =
        K8s.pod("shop", Map.of("sidecar.istio.io/proxyImage", "x"))
            .editSpec()
            .withHostNetwork(true)
            .endSpec()
            .build();
    Optional<Outcome> o =
        new InjectGate(ISTIO).check(hostNetwork, K8s.enabled("shop"), t -> {}, w -> {});
    assertThat(o).hasValueSatisfying(x -> assertThat(x).isInstanceOf(Outcome.Skip.class));
  }
}
