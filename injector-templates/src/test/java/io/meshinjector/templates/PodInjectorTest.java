package io.meshinjector.templates;

import static io.meshinjector.engine.decision.ProxyPlacement.CONTAINER;
import static io.meshinjector.engine.decision.ProxyPlacement.NATIVE_SIDECAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.templates.internal.TemplateException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodInjectorTest {
  private static final PodInjector INJECTOR = Fixtures.injector();

  private static Pod pod(String caseName) {
    return Cases.all()
        .filter(c -> c.name().equals(caseName))
        .findFirst()
        .orElseThrow()
        .pods()
        .get(0);
  }

  private static List<String> names(List<Container> cs) {
    return cs.stream().map(Container::getName).toList();
  }

  @Test
  void nativeSidecarLayoutPutsRedirectThenProxyBeforeAppInitContainers() {
    Pod out =
        Injected.pod(
            INJECTOR,
            pod("multi-init-native-nft"),
            Fixtures.inject(
                "/Deployment/hello", PathOption.INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, true));
    assertThat(names(out.getSpec().getInitContainers()))
        .containsExactly("linkerd-init", "linkerd-proxy", "init-one", "init-two");
    Container proxy = out.getSpec().getInitContainers().get(1);
    assertThat(proxy.getRestartPolicy()).isEqualTo("Always");
    assertThat(proxy.getStartupProbe().getHttpGet().getPath()).isEqualTo("/ready");
    assertThat(proxy.getLifecycle().getPostStart().getExec().getCommand())
        .containsExactly("/usr/lib/linkerd/linkerd-await", "--timeout=2m", "--port=4191");
    assertThat(names(out.getSpec().getContainers())).containsExactly("hello");
  }

  /**
   * Linkerd's proxy-init has no native nftables mode; the engine never chooses init/nftables for
   * the flavour, and should it, the admission fails naming why rather than admitting a pod whose
   * linkerd-init runs an empty iptables path and crash-loops. Istio's istio-iptables has the mode.
   */
  @ParameterizedTest
  @MethodSource("layouts")
  void linkerdRefusesToRenderNativeNftables(ProxyPlacement proxy, boolean ipv6) {
    Decision nftables =
        Fixtures.inject(
            "/Deployment/hello",
            new io.meshinjector.engine.decision.Plan(
                PathOption.INIT_NFTABLES, proxy, true, ipv6, null));
    Pod pod = pod("multi-init-native-nft");
    assertThatThrownBy(() -> Fixtures.patch(INJECTOR, pod, nftables))
        .isInstanceOf(TemplateException.class)
        .hasMessageContaining("cannot inject with init/nftables")
        .hasMessageContaining("'templates.proxyInit' (built-in)")
        .hasMessageContaining("mode nftables has none")
        .hasMessageContaining("[legacy, nft, plain]")
        .hasMessageContaining("no native nftables mode");
    Container istioInit =
        Injected.pod(IstioCases.injector(), pod, nftables).getSpec().getInitContainers().stream()
            .filter(c -> c.getName().equals("istio-init"))
            .findFirst()
            .orElseThrow();
    assertThat(istioInit.getArgs()).contains("--native-nftables");
  }

  static Stream<Arguments> layouts() {
    return Stream.of(
        Arguments.of(NATIVE_SIDECAR, false),
        Arguments.of(CONTAINER, false),
        Arguments.of(NATIVE_SIDECAR, true));
  }

  /** Every other mode has its binaries, so Linkerd renders each (the goldens hold the output). */
  @Test
  void linkerdRendersEveryIptablesMode() {
    for (PathOption path :
        List.of(PathOption.INIT_NFT, PathOption.INIT_LEGACY, PathOption.INIT_PLAIN)) {
      Pod out =
          Injected.pod(
              INJECTOR,
              pod("multi-init-native-nft"),
              Fixtures.inject("/Deployment/hello", path, NATIVE_SIDECAR, true));
      assertThat(out.getSpec().getInitContainers().get(0).getArgs())
          .as(path.toString())
          .contains("--firewall-bin-path");
    }
  }

  @Test
  void regularLayoutPutsProxyFirstAndRedirectAfterAppInitContainers() {
    Pod out =
        Injected.pod(
            INJECTOR,
            pod("multi-init-native-nft"),
            Fixtures.inject("/Deployment/hello", PathOption.CNI, ProxyPlacement.CONTAINER, false));
    assertThat(names(out.getSpec().getInitContainers()))
        .containsExactly("init-one", "init-two", "linkerd-network-validator");
    Container proxy = out.getSpec().getContainers().get(0);
    assertThat(proxy.getName()).isEqualTo("linkerd-proxy");
    assertThat(proxy.getRestartPolicy()).isNull();
    assertThat(proxy.getStartupProbe()).isNull();
    assertThat(proxy.getLifecycle()).as("await off").isNull();
    assertThat(out.getSpec().getVolumes())
        .extracting("name")
        .doesNotContain("linkerd-proxy-init-xtables-lock");
  }

  /** A container of the pod that has the name of one we would add, under a plan that adds it. */
  static Stream<Arguments> nameClashes() {
    return Stream.of(
        Arguments.of("initContainers", "linkerd-init", PathOption.INIT_NFT, NATIVE_SIDECAR),
        Arguments.of("initContainers", "linkerd-init", PathOption.INIT_LEGACY, CONTAINER),
        Arguments.of("containers", "linkerd-init", PathOption.INIT_PLAIN, NATIVE_SIDECAR),
        Arguments.of("containers", "linkerd-network-validator", PathOption.CNI, CONTAINER),
        Arguments.of(
            "ephemeralContainers", "linkerd-network-validator", PathOption.CNI, NATIVE_SIDECAR),
        Arguments.of("ephemeralContainers", "linkerd-proxy", PathOption.INIT_NFT, CONTAINER));
  }

  @ParameterizedTest(name = "{0} has {1}, {2} {3}")
  @MethodSource("nameClashes")
  void aPodWithAContainerNamedLikeOneOfOursIsLeftAsItIs(
      String list, String name, PathOption path, ProxyPlacement proxy) {
    Pod pod = podWith(list, name);
    Decision decision = Fixtures.inject("shop/Pod/p", path, proxy, true);
    Pod out = Injected.pod(INJECTOR, pod, decision);
    assertThat(out).isEqualTo(pod).isNotSameAs(pod);
    assertThat(Fixtures.patch(INJECTOR, pod, decision).patch().isEmpty()).isTrue();
  }

  @Test
  void aNameThatThePlanDoesNotAddDoesNotStopInjection() {
    // linkerd-init is not added on the CNI path, so nothing clashes; the gate, not the renderer,
    // decides whether such a pod belongs to another mesh.
    Pod pod = podWith("initContainers", "linkerd-init");
    Pod out =
        Injected.pod(
            INJECTOR, pod, Fixtures.inject("shop/Pod/p", PathOption.CNI, NATIVE_SIDECAR, true));
    assertThat(names(out.getSpec().getInitContainers()))
        .containsExactly("linkerd-network-validator", "linkerd-proxy", "linkerd-init");
    Fixtures.assertValidPod(Fixtures.JSON.valueToTree(out), "cni with linkerd-init");
  }

  @Test
  void aProxyAndRedirectTemplateOfOneNameAreRefusedAtRender() {
    // The load-time check sees only names that do not depend on the pod.
    TemplateConfig config =
        TemplateConfig.from(
            ConfigLoader.fromYaml(
                "templates:\n  validator: {name: '${workload.name}', image: v}\n"));
    Pod pod = podWith("containers", "sidecar");
    PodInjector injector = new PodInjector(config);
    assertThat(
            names(
                Injected.pod(
                        injector,
                        pod,
                        Fixtures.inject("shop/Deployment/web", PathOption.CNI, CONTAINER, true))
                    .getSpec()
                    .getInitContainers()))
        .containsExactly("web");
    assertThatThrownBy(
            () ->
                Injected.pod(
                    injector,
                    pod,
                    Fixtures.inject(
                        "shop/Deployment/linkerd-proxy", PathOption.CNI, CONTAINER, true)))
        .isInstanceOf(TemplateException.class)
        .hasMessageContaining("both named 'linkerd-proxy'");
  }

  private static Pod podWith(String list, String name) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .withNamespace("shop")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("app:1")
            .endContainer()
            .endSpec();
    switch (list) {
      case "containers" ->
          b.editSpec().addNewContainer().withName(name).withImage("x").endContainer().endSpec();
      case "initContainers" ->
          b.editSpec()
              .addNewInitContainer()
              .withName(name)
              .withImage("x")
              .endInitContainer()
              .endSpec();
      case "ephemeralContainers" ->
          b.editSpec()
              .addNewEphemeralContainer()
              .withName(name)
              .withImage("x")
              .endEphemeralContainer()
              .endSpec();
      default -> throw new IllegalArgumentException(list);
    }
    return b.build();
  }

  @Test
  void iptablesModeChoosesTheFirewallBinaries() {
    for (var c :
        List.of(
            new Object[] {PathOption.INIT_NFT, "iptables-nft", "iptables-nft-save"},
            new Object[] {PathOption.INIT_LEGACY, "iptables-legacy", "iptables-legacy-save"},
            new Object[] {PathOption.INIT_PLAIN, "iptables", "iptables-save"})) {
      Pod out =
          Injected.pod(
              INJECTOR,
              pod("pod-container-legacy"),
              Fixtures.inject(
                  "emojivoto/Pod/vote-bot", (PathOption) c[0], ProxyPlacement.CONTAINER, true));
      List<String> args = out.getSpec().getInitContainers().get(0).getArgs();
      assertThat(args.subList(0, 4))
          .containsExactly(
              "--firewall-bin-path", (String) c[1], "--firewall-save-bin-path", (String) c[2]);
    }
  }

  @Test
  void originalIsUntouchedAndSkipReturnsAnEqualCopy() {
    Pod original = pod("affinity-native-cni");
    JsonNode before = Fixtures.JSON.valueToTree(original);
    Pod out =
        Injected.pod(
            INJECTOR,
            original,
            Fixtures.inject(
                "batch/Pod/worker-7d9c-abcde",
                Fixtures.plan(
                    PathOption.CNI, ProxyPlacement.NATIVE_SIDECAR, true, Cases.CNI_READY)));
    assertThat((JsonNode) Fixtures.JSON.valueToTree(original)).isEqualTo(before);
    assertThat(out).isNotEqualTo(original);

    Pod skipped = Injected.pod(INJECTOR, original, Fixtures.skip("batch/Pod/worker-7d9c-abcde"));
    assertThat(skipped).isEqualTo(original).isNotSameAs(original);
  }

  @Test
  void podOwnedByADeploymentsReplicaSetIsLabelledWithTheDeployment() {
    Pod out =
        Injected.pod(
            INJECTOR,
            pod("affinity-native-cni"),
            Fixtures.inject(
                "batch/Pod/worker-7d9c-abcde", PathOption.CNI, ProxyPlacement.CONTAINER, true));
    assertThat(out.getMetadata().getLabels())
        .containsEntry("linkerd.io/proxy-deployment", "worker")
        .containsEntry("linkerd.io/workload-ns", "batch")
        .containsEntry("app", "worker");
    assertThat(out.getMetadata().getAnnotations())
        .containsEntry("mesh-injector.io/decision", "cni container await")
        .containsEntry("example.com/owner", "team-a");
  }

  @Test
  void webhookWorkloadIdNamingTheReplicaSetStillLabelsTheDeployment() {
    // the webhook names a created pod's workload after its controller, the ReplicaSet
    Pod out =
        Injected.pod(
            INJECTOR,
            pod("affinity-native-cni"),
            Fixtures.inject(
                "batch/ReplicaSet/worker-7d9c", PathOption.CNI, ProxyPlacement.CONTAINER, true));
    assertThat(out.getMetadata().getLabels())
        .containsEntry("linkerd.io/proxy-deployment", "worker")
        .doesNotContainKey("linkerd.io/proxy-replicaset");
  }

  @Test
  void skipPortsAndSubnetsComeFromValues() {
    PodInjector injector =
        new PodInjector(
            TemplateConfig.from(
                ConfigLoader.fromYaml(
                    "proxyInit:\n  ignoreInboundPorts: ['25']\n  ignoreOutboundPorts: []\n"
                        + "  skipSubnets: [10.96.0.0/12, 169.254.169.254/32]\n")));
    Pod out =
        Injected.pod(
            injector,
            pod("pod-container-legacy"),
            Fixtures.inject(
                "emojivoto/Pod/vote-bot", PathOption.INIT_NFT, ProxyPlacement.CONTAINER, true));
    List<String> args = out.getSpec().getInitContainers().get(0).getArgs();
    assertThat(args).containsSequence("--inbound-ports-to-ignore", "4190,4191,25");
    assertThat(args).doesNotContain("--outbound-ports-to-ignore");
    assertThat(args).containsSequence("--subnets-to-ignore", "10.96.0.0/12,169.254.169.254/32");
  }

  @Test
  void aReplacedTemplateIsUsedAndItsUnknownValuesAreRefusedAtLoad() {
    TemplateConfig config =
        TemplateConfig.from(
            ConfigLoader.fromYaml(
                "injection:\n"
                    + "  otherMeshContainers: [linkerd-init, my-validator]\n"
                    + "templates:\n"
                    + "  validator:\n"
                    + "    name: my-validator\n"
                    + "    image: ${values.validatorImage}\n"
                    + "    securityContext: {runAsNonRoot: true}\n"
                    + "  values: {validatorImage: example.org/v:1}\n"));
    Pod out =
        Injected.pod(
            new PodInjector(config),
            pod("pod-container-legacy"),
            Fixtures.inject(
                "emojivoto/Pod/vote-bot", PathOption.CNI, ProxyPlacement.NATIVE_SIDECAR, true));
    Container v = out.getSpec().getInitContainers().get(0);
    assertThat(v.getName()).isEqualTo("my-validator");
    assertThat(v.getImage()).isEqualTo("example.org/v:1");

    assertThatThrownBy(
            () ->
                TemplateConfig.from(
                    ConfigLoader.fromYaml(
                        "templates:\n  proxy: 'name: p\\nimage: ${proxy.imag}'\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("templates.proxy")
        .hasMessageContaining("${proxy.imag}");
  }

  @Test
  void badValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> TemplateConfig.from(ConfigLoader.fromYaml("proxy:\n  uid: 0\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("proxy.uid");
    assertThatThrownBy(
            () -> TemplateConfig.from(ConfigLoader.fromYaml("proxy:\n  ports: {admin: 70000}\n")))
        .hasMessageContaining("proxy.ports.admin");
    assertThatThrownBy(() -> ConfigLoader.fromYaml("validator:\n  conectAddr: x\n"))
        .hasMessageContaining("validator.conectAddr");
  }

  @Test
  void defaultsLoadAndCarryTheBundledVersion() {
    TemplateConfig d = TemplateConfig.from(ConfigLoader.defaults());
    assertThat(d.proxy().imageRef()).startsWith("cr.l5d.io/linkerd/proxy:");
    // read from version.properties: on this classpath the test resource's, which goldens pin
    assertThat(d.values().get("injector.version").asText()).isEqualTo("test");
    assertThat(d.values()).containsKey("proxy.ports.admin");
  }
}
