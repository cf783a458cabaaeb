package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import java.util.List;
import org.junit.jupiter.api.Test;

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
        INJECTOR.render(
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

  @Test
  void regularLayoutPutsProxyFirstAndRedirectAfterAppInitContainers() {
    Pod out =
        INJECTOR.render(
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

  @Test
  void iptablesModeChoosesTheFirewallBinaries() {
    for (var c :
        List.of(
            new Object[] {PathOption.INIT_NFT, "iptables-nft", "iptables-nft-save"},
            new Object[] {PathOption.INIT_LEGACY, "iptables-legacy", "iptables-legacy-save"},
            new Object[] {PathOption.INIT_PLAIN, "iptables", "iptables-save"})) {
      Pod out =
          INJECTOR.render(
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
        INJECTOR.render(
            original,
            Fixtures.inject(
                "batch/Pod/worker-7d9c-abcde",
                Fixtures.plan(
                    PathOption.CNI, ProxyPlacement.NATIVE_SIDECAR, true, Cases.CNI_READY)));
    assertThat((JsonNode) Fixtures.JSON.valueToTree(original)).isEqualTo(before);
    assertThat(out).isNotEqualTo(original);

    Pod skipped = INJECTOR.render(original, Fixtures.skip("batch/Pod/worker-7d9c-abcde"));
    assertThat(skipped).isEqualTo(original).isNotSameAs(original);
  }

  @Test
  void podOwnedByADeploymentsReplicaSetIsLabelledWithTheDeployment() {
    Pod out =
        INJECTOR.render(
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
        INJECTOR.render(
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
        injector.render(
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
                "templates:\n"
                    + "  validator:\n"
                    + "    name: my-validator\n"
                    + "    image: ${values.validatorImage}\n"
                    + "    securityContext: {runAsNonRoot: true}\n"
                    + "  values: {validatorImage: example.org/v:1}\n"));
    Pod out =
        new PodInjector(config)
            .render(
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
    TemplateConfig d = TemplateConfig.defaults();
    assertThat(d.proxy().imageRef()).startsWith("cr.l5d.io/linkerd/proxy:");
    assertThat(d.injectorVersion()).isNotBlank().doesNotContain("${");
    assertThat(d.values()).containsKey("proxy.ports.admin");
  }
}
