package io.meshinjector.engine.linkerd;

import static io.meshinjector.engine.testing.K8s.RHEL8;
import static io.meshinjector.engine.testing.K8s.namespace;
import static io.meshinjector.engine.testing.K8s.node;
import static io.meshinjector.engine.testing.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.ConfigOverride;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.testing.Scenario;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Linkerd's own configuration annotations in the engine: which apply and from where (pod over
 * namespace over config), bad values ignored with a warning, Linkerd's opt-out, and the layout and
 * await they ask for decided with the per-node rules.
 */
class LinkerdAnnotationsTableTest {
  private static final Node NEW_1 = node("new-1", RHEL8, "v1.31.0");
  private static final Node NEW_2 = node("new-2", RHEL8, "v1.30.1");
  private static final Node OLD = node("old-1", RHEL8, "v1.28.9-eks-036c24b");

  private static Namespace shop(Map<String, String> extra) {
    Map<String, String> a = new HashMap<>(extra);
    a.put("inject", "enabled");
    return namespace("shop", a, Map.of());
  }

  private static Pod podWith(Map<String, String> annotations) {
    return pod("shop", annotations).build();
  }

  private static Decision decide(Map<String, String> ns, Map<String, String> pod) {
    return Scenario.of("x").cluster(shop(ns), NEW_1, NEW_2).pod(podWith(pod)).decide();
  }

  @Test
  void theConfigOverridesInputAppliesFromThePod() {
    Map<String, String> a =
        Map.of(
            "config.linkerd.io/admin-port", "9998",
            "config.linkerd.io/proxy-cpu-limit", "1",
            "config.linkerd.io/proxy-cpu-request", "0.5",
            "config.linkerd.io/proxy-memory-limit", "256Mi",
            "config.linkerd.io/proxy-memory-request", "64Mi",
            "config.linkerd.io/proxy-version", "override",
            "config.linkerd.io/skip-inbound-ports", "7777,8888",
            "config.linkerd.io/skip-outbound-ports", "9999");
    Decision d = decide(Map.of(), a);
    assertThat(d.inject()).isTrue();
    assertThat(d.overrides().applied()).hasSize(8).noneMatch(ConfigOverride::fromNamespace);
    assertThat(d.overrides().value("config.linkerd.io/proxy-cpu-request")).hasValue("500m");
    assertThat(d.overrides().value("config.linkerd.io/admin-port")).hasValue("9998");
    assertThat(d.overrides().inherited()).isEmpty();
    assertThat(d.warnings()).isEmpty();
    assertThat(d.trace().toString()).contains("config.linkerd.io/admin-port=9998 (pod)");
    assertThat(d.toJsonMap().get("overrides").toString())
        .contains("annotation=config.linkerd.io/proxy-version, value=override, from=pod");
  }

  @Test
  void theNamespacesValuesApplyWhereThePodHasNoneAndThePodsWin() {
    Decision d =
        decide(
            Map.of(
                "config.linkerd.io/skip-outbound-ports", "5432",
                "config.linkerd.io/proxy-log-level", "debug",
                "config.linkerd.io/enable-gateway", "true",
                "config.alpha.linkerd.io/proxy-wait-before-exit-seconds", "300"),
            Map.of("config.linkerd.io/proxy-log-level", "info"));
    assertThat(d.overrides().value("config.linkerd.io/proxy-log-level")).hasValue("info");
    assertThat(d.overrides().value("config.linkerd.io/skip-outbound-ports")).hasValue("5432");
    // enable-gateway is not among the annotations Linkerd copies from the namespace
    assertThat(d.overrides().value("config.linkerd.io/enable-gateway")).isEmpty();
    assertThat(d.overrides().inherited())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "config.linkerd.io/skip-outbound-ports", "5432",
                "config.alpha.linkerd.io/proxy-wait-before-exit-seconds", "300"));
    assertThat(d.trace().toString())
        .contains("config.linkerd.io/skip-outbound-ports=5432 (namespace)")
        .contains("config.linkerd.io/proxy-log-level=info (pod)");
  }

  static Stream<Object[]> badValues() {
    return Stream.of(
        new Object[] {"config.linkerd.io/admin-port", "nine", "a port number"},
        new Object[] {"config.linkerd.io/admin-port", "70000", "a port number"},
        new Object[] {"config.linkerd.io/skip-inbound-ports", "80,x", "ports or port ranges"},
        new Object[] {"config.linkerd.io/skip-outbound-ports", "9000-8000", "port ranges"},
        new Object[] {"config.linkerd.io/proxy-cpu-limit", "lots", "Kubernetes quantity"},
        new Object[] {"config.linkerd.io/proxy-memory-request", "-1Mi", "Kubernetes quantity"},
        new Object[] {"config.linkerd.io/proxy-log-format", "xml", "one of [plain, json]"},
        new Object[] {"config.linkerd.io/proxy-outbound-connect-timeout", "10", "a duration"},
        new Object[] {"config.linkerd.io/proxy-uid", "0", "from 1"},
        new Object[] {"config.linkerd.io/skip-subnets", "10.0.0.0", "CIDRs"},
        new Object[] {"config.linkerd.io/proxy-additional-env", "{\"a\":1}", "JSON list"},
        new Object[] {"config.linkerd.io/proxy-cpu-ratio-limit", "1.5", "less than 1.0"},
        new Object[] {"config.linkerd.io/default-inbound-policy", "open", "deny"},
        new Object[] {"config.linkerd.io/proxy-version", "a b", "image tag"},
        new Object[] {"config.linkerd.io/opaque-ports", "3306,nope", "nope is none of them"},
        new Object[] {"config.linkerd.io/proxy-await", "yes", "[enabled, disabled]"});
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("badValues")
  void aBadValueIsIgnoredWithAWarningNamingItAndWhatItAccepts(
      String key, String value, String accepts) {
    Decision d = decide(Map.of(), Map.of(key, value));
    assertThat(d.inject()).as("never a refusal").isTrue();
    assertThat(d.overrides().value(key)).isEmpty();
    assertThat(d.warnings())
        .singleElement()
        .asString()
        .contains("annotation " + key + " on the pod")
        .contains("'" + value + "'")
        .contains(accepts)
        .contains("ignored");
  }

  @Test
  void aBadValueOnThePodDoesNotFallBackToTheNamespaces() {
    Decision d =
        decide(
            Map.of("config.linkerd.io/admin-port", "9998"),
            Map.of("config.linkerd.io/admin-port", "x"));
    assertThat(d.overrides().value("config.linkerd.io/admin-port")).isEmpty();
    assertThat(d.warnings()).singleElement().asString().contains("on the pod");
  }

  @Test
  void opaquePortsResolveTheirNamedPorts() {
    Pod p =
        pod("shop", Map.of("config.linkerd.io/opaque-ports", "mysql, 4000-4100,11211"))
            .editSpec()
            .editFirstContainer()
            .addNewPort()
            .withName("mysql")
            .withContainerPort(3306)
            .endPort()
            .endContainer()
            .endSpec()
            .build();
    Decision d = Scenario.of("x").cluster(shop(Map.of()), NEW_1).pod(p).decide();
    assertThat(d.overrides().value("config.linkerd.io/opaque-ports"))
        .hasValue("3306,4000-4100,11211");
  }

  @Test
  void linkerdsOptOutKeepsThePodOut() {
    Decision onPod = decide(Map.of(), Map.of("linkerd.io/inject", "disabled"));
    assertThat(onPod.inject()).isFalse();
    assertThat(onPod.outcomeCode()).isEqualTo("injection-disabled");
    assertThat(onPod.trace().toString()).contains("linkerd.io/inject: disabled on the pod");

    Decision onNs = decide(Map.of("linkerd.io/inject", "disabled"), Map.of());
    assertThat(onNs.inject()).isFalse();
    assertThat(onNs.reason().orElseThrow()).contains("namespace shop");

    // the pod's own word wins over its namespace's
    assertThat(
            decide(Map.of("linkerd.io/inject", "disabled"), Map.of("inject", "enabled")).inject())
        .isTrue();
    assertThat(
            decide(Map.of("linkerd.io/inject", "disabled"), Map.of("linkerd.io/inject", "enabled"))
                .inject())
        .isTrue();
    // the istio flavour reads no Linkerd annotation
    Decision istio =
        Scenario.of("x")
            .config("mesh: istio\n")
            .cluster(shop(Map.of()), NEW_1)
            .pod(
                podWith(
                    Map.of("linkerd.io/inject", "disabled", "config.linkerd.io/admin-port", "1")))
            .decide();
    assertThat(istio.inject()).isTrue();
    assertThat(istio.overrides().isEmpty()).isTrue();
  }

  @Test
  void aNativeSidecarAskedForOnMixedNodesConstrainsThePod() {
    Decision d =
        Scenario.of("x")
            .cluster(shop(Map.of()), NEW_1, OLD)
            .pod(podWith(Map.of("config.linkerd.io/proxy-enable-native-sidecar", "true")))
            .decide();
    assertThat(d.summary()).isEqualTo("init/nft native-sidecar await constrained");
    assertThat(d.plan().orElseThrow().nodeConstraint().toString()).contains("native-sidecar");
    assertThat(d.trace().toString())
        .contains(
            "config.linkerd.io/proxy-enable-native-sidecar: \"true\" asks for a native sidecar");

    Decision refused =
        Scenario.of("x")
            .config("policy: {mixedNodes: reject}\n")
            .cluster(shop(Map.of()), NEW_1, OLD)
            .pod(podWith(Map.of("config.linkerd.io/proxy-enable-native-sidecar", "true")))
            .decide();
    assertThat(refused.rejected()).isTrue();
    assertThat(refused.reason().orElseThrow())
        .contains("config.linkerd.io/proxy-enable-native-sidecar");
  }

  @Test
  void falseForcesTheClassicLayoutAndTheNamespaceMaySayIt() {
    assertThat(
            decide(Map.of(), Map.of("config.linkerd.io/proxy-enable-native-sidecar", "false"))
                .summary())
        .startsWith("init/nft container");
    assertThat(
            decide(Map.of("config.alpha.linkerd.io/proxy-enable-native-sidecar", "false"), Map.of())
                .summary())
        .startsWith("init/nft container");
    // the stable spelling wins over the older ones
    assertThat(
            decide(
                    Map.of(),
                    Map.of(
                        "config.linkerd.io/proxy-enable-native-sidecar", "true",
                        "config.beta.linkerd.io/proxy-enable-native-sidecar", "false"))
                .summary())
        .startsWith("init/nft native-sidecar");
  }

  @Test
  void oursWinsOverLinkerdsWithAWarning() {
    Decision d =
        decide(
            Map.of(),
            Map.of(
                "config.linkerd.io/proxy-enable-native-sidecar", "true",
                "mesh-injector.io/native-sidecar", "disabled",
                "config.linkerd.io/proxy-await", "enabled",
                "mesh-injector.io/proxy-await", "disabled"));
    assertThat(d.summary()).isEqualTo("init/nft container");
    assertThat(d.warnings())
        .anySatisfy(
            w ->
                assertThat(w)
                    .contains("mesh-injector.io/native-sidecar: disabled wins over")
                    .contains("config.linkerd.io/proxy-enable-native-sidecar"))
        .anySatisfy(
            w ->
                assertThat(w)
                    .contains("mesh-injector.io/proxy-await: disabled wins over")
                    .contains("config.linkerd.io/proxy-await: enabled"));
  }

  @Test
  void proxyAwaitDisabledTurnsTheAwaitOff() {
    Decision d =
        decide(
            Map.of(),
            Map.of(
                "config.linkerd.io/proxy-enable-native-sidecar", "false",
                "config.linkerd.io/proxy-await", "disabled"));
    assertThat(d.summary()).isEqualTo("init/nft container");
    assertThat(d.plan().orElseThrow().proxyAwait()).isFalse();
  }

  @Test
  void theLeftOutOnesWarnAndDoNotApply() {
    Decision d = decide(Map.of(), Map.of("config.linkerd.io/close-wait-timeout", "1m"));
    assertThat(d.overrides().isEmpty()).isTrue();
    assertThat(d.warnings())
        .singleElement()
        .asString()
        .contains("close-wait-timeout")
        .contains("not applied")
        .contains("root");
  }

  @Test
  void everyKeyOfTheCatalogueIsLinkerds() {
    for (LinkerdAnnotation a : LinkerdAnnotation.values()) {
      assertThat(a.key()).matches("config\\.(alpha\\.|beta\\.)?linkerd\\.io/[a-z-]+");
    }
    // every config key of linkerd/linkerd2 pkg/k8s/labels.go at b24cd40
    assertThat(List.of(LinkerdAnnotation.values())).hasSize(49);
  }
}
