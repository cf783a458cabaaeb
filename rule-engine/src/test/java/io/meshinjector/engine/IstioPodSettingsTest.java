package io.meshinjector.engine;

import static io.meshinjector.engine.testing.K8s.RHEL8;
import static io.meshinjector.engine.testing.K8s.enabled;
import static io.meshinjector.engine.testing.K8s.node;
import static io.meshinjector.engine.testing.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.RefusalReason;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.testing.Scenario;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Istio flavour's per-pod settings the engine reads: proxy.istio.io/config's
 * holdApplicationUntilProxyStarts decides proxy-await (and explain says so); the annotations that
 * reach the templates are checked, and a bad value is refused naming the annotation.
 */
class IstioPodSettingsTest {
  private static Decision decide(String config, Map<String, String> annotations) {
    return Scenario.of("shop/Pod/web")
        .cluster(enabled("shop"), node("rhel-1", RHEL8, "v1.28.0"))
        .pod(pod("shop", annotations).build())
        .config(config)
        .decide();
  }

  private static Decision istio(Map<String, String> annotations) {
    return decide("mesh: istio\n", annotations);
  }

  private static String awaitTrace(Decision d) {
    return d.trace().stream()
        .filter(t -> t.rule().equals("await"))
        .map(TraceStep::detail)
        .reduce("", (a, b) -> a + b + "\n");
  }

  private static boolean await(Decision d) {
    return d.plan().map(Plan::proxyAwait).orElseThrow();
  }

  @Test
  void thePodsHoldSettingWinsOverTheProxyAwaitAnnotationAndExplainSaysSo() {
    Decision d =
        istio(
            Map.of(
                "proxy.istio.io/config", "{ \"holdApplicationUntilProxyStarts\": true }",
                "mesh-injector.io/proxy-await", "disabled"));
    assertThat(await(d)).isTrue();
    assertThat(awaitTrace(d))
        .contains("proxy.istio.io/config holdApplicationUntilProxyStarts: true")
        .contains("over mesh-injector.io/proxy-await (disabled)");

    Decision off = istio(Map.of("proxy.istio.io/config", "holdApplicationUntilProxyStarts: false"));
    assertThat(await(off)).isFalse();
    assertThat(awaitTrace(off)).contains("holdApplicationUntilProxyStarts: false");
    assertThat(off.summary()).doesNotContain("await");
  }

  @Test
  void withoutTheFieldProxyAwaitIsTheAnnotationsAsBefore() {
    Decision d = istio(Map.of("proxy.istio.io/config", "{concurrency: 2}"));
    assertThat(await(d)).isTrue();
    assertThat(awaitTrace(d)).isEmpty();
    assertThat(await(istio(Map.of("mesh-injector.io/proxy-await", "disabled")))).isFalse();
  }

  @Test
  void linkerdReadsNoIstioHoldSetting() {
    Decision d =
        decide(
            "proxy: {trustAnchorsPEM: x}\n",
            Map.of(
                "proxy.istio.io/config", "{holdApplicationUntilProxyStarts: true}",
                "mesh-injector.io/proxy-await", "disabled"));
    assertThat(await(d)).isFalse();
  }

  @Test
  void badValuesAreRefusedNamingTheAnnotationAndTheProblem() {
    Map<String, String> expected =
        Map.of(
            "proxy.istio.io/config: [1, 2]", "YAML or JSON map",
            "proxy.istio.io/config: {holdApplicationUntilProxyStarts: maybe}", "true, false",
            "proxy.istio.io/config: '{\"concurrency\": 2'", "not valid YAML or JSON",
            "sidecar.istio.io/proxyCPU: lots", "must match",
            "proxy.istio.io/config: {interceptionMode: TPROXY}", "it sets interceptionMode",
            "proxy.istio.io/config: {image: {imageType: debug}}", "it sets image",
            "sidecar.istio.io/proxyMemoryLimit: 1Gb", "must match",
            "sidecar.istio.io/rewriteAppHTTPProbers: maybe", "must match");
    expected.forEach(
        (annotation, problem) -> {
          int colon = annotation.indexOf(": ");
          String key = annotation.substring(0, colon);
          String value = annotation.substring(colon + 2);
          if (value.startsWith("'")) {
            value = value.substring(1, value.length() - 1);
          }
          Decision d = istio(Map.of(key, value));
          assertThat(d.outcome()).as(annotation).isInstanceOf(Outcome.Refuse.class);
          Outcome.Refuse r = (Outcome.Refuse) d.outcome();
          assertThat(r.reason()).isEqualTo(RefusalReason.INVALID_ANNOTATION);
          assertThat(r.message()).as(annotation).contains(key).contains(problem);
        });
  }

  @Test
  void istiosOwnSpellingsOfTheNewAnnotationsAreAccepted() {
    for (Map<String, String> ok :
        new Map[] {
          Map.of("sidecar.istio.io/rewriteAppHTTPProbers", "false"),
          Map.of("sidecar.istio.io/rewriteAppHTTPProbers", "True"),
          Map.of("sidecar.istio.io/proxyCPU", "4000m", "sidecar.istio.io/proxyMemory", "1Gi"),
          Map.of("sidecar.istio.io/proxyCPULimit", "2", "sidecar.istio.io/proxyMemoryLimit", "2G"),
          Map.of("proxy.istio.io/config", "discoveryAddress: foo:123\nproxyMetadata: {FOO: bar}"),
        }) {
      assertThat(istio(ok).inject()).as(ok.toString()).isTrue();
    }
  }
}
