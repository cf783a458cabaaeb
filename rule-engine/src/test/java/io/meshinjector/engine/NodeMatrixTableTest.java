package io.meshinjector.engine;

import static io.meshinjector.engine.testing.K8s.CENTOS7;
import static io.meshinjector.engine.testing.K8s.RHEL8;
import static io.meshinjector.engine.testing.K8s.enabled;
import static io.meshinjector.engine.testing.K8s.node;
import static io.meshinjector.engine.testing.K8s.operatingSystem;
import static io.meshinjector.engine.testing.K8s.pod;
import static io.meshinjector.engine.testing.K8s.podCidrs;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.testing.K8s;
import io.meshinjector.engine.testing.Scenario;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The node matrix's three keys, each value and each policy: the node's OS ({@code os}), whether its
 * pods have IPv6 ({@code ipv6-pods}) with the IPv6 redirect keys ({@code ip6tables-legacy}, {@code
 * ip6tables-nft}), and native nftables ({@code nftables}) in either mesh.
 */
class NodeMatrixTableTest {
  private static final Namespace SHOP = enabled("shop");
  private static final String V4 = "10.244.1.0/24";
  private static final String V6 = "fd00:10:244:1::/64";
  private static final String NO_LABELS =
      "policy.publishLabels is off, so no capability label could pin the pod";

  private static final Node LINUX = operatingSystem(node("linux-1", RHEL8, "v1.31.0"), "linux");
  private static final Node WINDOWS =
      operatingSystem(
          node("win-1", "Windows Server 2022 Datacenter", "v1.31.0", "kubernetes.io/os=windows"),
          "windows");

  @ParameterizedTest(name = "{0}")
  @MethodSource({"os", "ipv6", "nftables"})
  void decides(Scenario s) {
    s.verify();
  }

  // --- os ---

  static Stream<Scenario> os() {
    Pod windowsPod = pod("shop", Map.of()).editSpec().withNewOs("windows").endSpec().build();
    Pod onWindows =
        pod("shop", Map.of())
            .editSpec()
            .withNodeSelector(Map.of("kubernetes.io/os", "windows"))
            .endSpec()
            .build();
    // a node a hand-written --cluster file describes only by the kubelet's label
    Node labelledWindows =
        node("win-2", "Windows Server 2022 Datacenter", "v1.31.0", "kubernetes.io/os=windows");
    return Stream.of(
        Scenario.of("os: a pod with spec.os.name windows")
            .cluster(SHOP, LINUX, WINDOWS)
            .pod(windowsPod)
            .skips("windows")
            .warning("sets spec.os.name: windows", "admitted without injection"),
        Scenario.of("os: every candidate runs Windows")
            .cluster(SHOP, LINUX, WINDOWS)
            .pod(onWindows)
            .skips("windows")
            .warning("every candidate node of", "runs Windows", "os windows (inference:")
            .trace("os: every candidate node"),
        Scenario.of("os: the kubelet's label alone says windows")
            .cluster(SHOP, labelledWindows)
            .pod(pod("shop"))
            .skips("windows"),
        Scenario.of("os: linux and windows candidates, constrain")
            .cluster(SHOP, LINUX, WINDOWS)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .constraint("capability.mesh-injector.io/os In [linux, unknown]")
            .warning(
                "pod constrained to the 1 of 2 candidate nodes that run Linux; the others run"
                    + " Windows: class")
            .trace("os: requires capability.mesh-injector.io/os In [linux, unknown]"),
        Scenario.of("os: linux and windows candidates, mixedNodes reject")
            .cluster(SHOP, LINUX, WINDOWS)
            .config("policy: {mixedNodes: reject}")
            .pod(pod("shop"))
            .refuses("mixed-nodes")
            .reason(
                "may land on Windows nodes",
                "(policy.mixedNodes is reject). Fix: give the pod a nodeSelector kubernetes.io/os:"
                    + " linux"),
        Scenario.of("os: linux and windows candidates, labels not published")
            .cluster(SHOP, LINUX, WINDOWS)
            .config("policy: {publishLabels: false}")
            .pod(pod("shop"))
            .refuses("mixed-nodes")
            .reason(NO_LABELS),
        Scenario.of("os: an operator override says linux, above what the Node says")
            .cluster(SHOP, WINDOWS)
            .config(
                "capabilities: {overrides: [{nodeSelector: {kubernetes.io/hostname: win-1}, set:"
                    + " {os: linux}}]}")
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .constraint(null),
        Scenario.of("os: unknown counts as linux")
            .cluster(SHOP, node("plain-1", RHEL8, "v1.31.0"))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .warningOmits("Windows"));
  }

  // --- ipv6 ---

  static Stream<Scenario> ipv6() {
    Node dual = podCidrs(node("dual-1", RHEL8, "v1.31.0"), V4, V6);
    Node dual2 = podCidrs(node("dual-2", RHEL8, "v1.31.0"), V4, "fd00:10:244:2::/64");
    Node v4only = podCidrs(node("v4-1", RHEL8, "v1.31.0"), V4);
    Node unknown = node("unset-1", RHEL8, "v1.31.0");
    Node centos7DualStack = podCidrs(node("c7-1", CENTOS7, "v1.31.0"), V4, V6);
    // two dual-stack nodes; the IPv6 redirect works on the first only
    HasMetadata[] ipv6WorksOnOne = {
      SHOP,
      dual,
      dual2,
      probe("dual-1", "available", "available"),
      probe("dual-2", "available", "unavailable")
    };
    return Stream.of(
        Scenario.of("ipv6: a dual-stack candidate, ip6tables-nft unknown (assumed)")
            .cluster(SHOP, dual)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .ipv6(true)
            .constraint(null)
            .trace("ipv6: the redirect covers IPv6: pods get IPv6 addresses on class")
            .warning("ip6tables-nft is unknown on", "assumed available"),
        Scenario.of("ipv6: a dual-stack candidate where ip6tables-nft works")
            .cluster(SHOP, dual, probe("dual-1", "available", "available"))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .ipv6(true)
            .warningOmits("ip6tables-nft"),
        Scenario.of("ipv6: IPv4-only candidates ignore ip6tables")
            .cluster(SHOP, v4only, probe("v4-1", "available", "unavailable"))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .ipv6(false)
            .trace("ipv6: no candidate gives pods IPv6 addresses"),
        Scenario.of("ipv6: no pod CIDRs, proxyInit.ipv6 false")
            .cluster(SHOP, unknown)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .ipv6(false)
            .trace("proxyInit.ipv6 is false, so the redirect is IPv4 only"),
        Scenario.of("ipv6: no pod CIDRs, proxyInit.ipv6 true")
            .cluster(SHOP, unknown)
            .config("proxyInit: {ipv6: true}")
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .ipv6(true)
            .trace("proxyInit.ipv6 is true, so the redirect covers IPv6"),
        Scenario.of("ipv6: dual-stack, the IPv6 redirect fails everywhere")
            .cluster(SHOP, dual, probe("dual-1", "available", "unavailable"))
            .pod(pod("shop"))
            .refuses("no-viable-path")
            .reason(
                "ip6tables-nft unavailable (probe:",
                "the pods have IPv6 (ipv6-pods present",
                "load nf_tables with IPv6 nat (nft_chain_nat) too"),
        Scenario.of("ipv6: dual-stack, the IPv6 redirect fails on one node, constrain")
            .cluster(ipv6WorksOnOne)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .ipv6(true)
            .constraint(
                "capability.mesh-injector.io/iptables-nft In [available, unknown],"
                    + " capability.mesh-injector.io/ip6tables-nft In [available, unknown]")
            .warning("pod constrained to the 1 of 2 candidate nodes where init/nft works"),
        Scenario.of("ipv6: dual-stack, the IPv6 redirect fails on one node, mixedNodes reject")
            .cluster(ipv6WorksOnOne)
            .config("policy: {mixedNodes: reject}")
            .pod(pod("shop"))
            .refuses("mixed-nodes")
            .reason("ip6tables-nft unavailable"),
        Scenario.of("ipv6: one dual-stack candidate makes the pod's redirect IPv6 everywhere")
            .cluster(
                SHOP,
                dual,
                v4only,
                probe("dual-1", "available", "available"),
                probe("v4-1", "available", "unavailable"))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .ipv6(true)
            .constraint(
                "capability.mesh-injector.io/iptables-nft In [available, unknown],"
                    + " capability.mesh-injector.io/ip6tables-nft In [available, unknown]"),
        // CentOS 7: legacy only; its IPv6 half is ip6tables-legacy
        Scenario.of("ipv6: legacy, ip6tables-legacy works")
            .cluster(
                SHOP, centos7DualStack, reported("c7-1", Map.of("ip6tables-legacy", "available")))
            .pod(pod("shop"))
            .injects("init/legacy native-sidecar await")
            .ipv6(true)
            .constraint(null),
        Scenario.of("ipv6: legacy, ip6tables-legacy fails")
            .cluster(
                SHOP, centos7DualStack, reported("c7-1", Map.of("ip6tables-legacy", "unavailable")))
            .pod(pod("shop"))
            .refuses("no-viable-path")
            .reason(
                "init/legacy (ip6tables-legacy unavailable (probe:",
                "load ip6_tables and ip6table_nat too (nodePrep.extraModules)"),
        Scenario.of("ipv6: the cni path leaves IPv6 to the plugin")
            .cluster(SHOP, dual, probe("dual-1", "unavailable", "unavailable"))
            .cniReady("dual-1")
            .pod(pod("shop"))
            .injects("cni native-sidecar await")
            .ipv6(true));
  }

  // --- nftables ---

  static Stream<Scenario> nftables() {
    Node nft = node("nft-1", RHEL8, "v1.31.0");
    Node dual = podCidrs(node("dual-1", RHEL8, "v1.31.0"), V4, V6);
    String istioNftables = "mesh: istio\npolicy: {preference: [init/nftables, init/nft]}";
    String linkerdNftables = "policy: {preference: [init/nftables, init/nft]}";
    return Stream.of(
        Scenario.of("nftables: istio, native nftables works")
            .cluster(SHOP, nft, nftablesProbe("nft-1", "available"))
            .config(istioNftables)
            .pod(pod("shop"))
            .injects("init/nftables native-sidecar await")
            .constraint(null),
        Scenario.of("nftables: istio, native nftables fails: the next mode")
            .cluster(SHOP, nft, nftablesProbe("nft-1", "unavailable"))
            .config(istioNftables)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .trace("choice: init/nftables works on 0 of 1 candidate(s)"),
        Scenario.of("nftables: istio, one inet table covers a dual-stack node")
            .cluster(SHOP, dual, nftablesProbe("dual-1", "available"))
            .config(istioNftables)
            .pod(pod("shop"))
            .injects("init/nftables native-sidecar await")
            .ipv6(true)
            .warningOmits("ip6tables"),
        Scenario.of("nftables: istio, a pod asks for it")
            .cluster(SHOP, nft, nftablesProbe("nft-1", "available"))
            .config("mesh: istio")
            .pod(pod("shop", Map.of("mesh-injector.io/iptables-mode", "nftables")).build())
            .injects("init/nftables native-sidecar await"),
        Scenario.of("nftables: linkerd leaves the operator's init/nftables out")
            .cluster(SHOP, nft, nftablesProbe("nft-1", "available"))
            .config(linkerdNftables)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .trace(
                "policy.preference offers init/nftables, which is left out: Linkerd's proxy-init"
                    + " has no native nftables mode"),
        Scenario.of("nftables: linkerd refuses a pod that asks for it")
            .cluster(SHOP, nft)
            .pod(pod("shop", Map.of("mesh-injector.io/iptables-mode", "nftables")).build())
            .refuses("invalid-annotation")
            .reason(
                "annotation mesh-injector.io/iptables-mode has invalid value 'nftables': allowed"
                    + " values are auto, legacy, nft, plain (Linkerd's proxy-init has no native"
                    + " nftables mode"));
  }

  private static GenericKubernetesResource probe(String node, String nft, String ip6nft) {
    return reported(node, Map.of("iptables-nft", nft, "ip6tables-nft", ip6nft));
  }

  private static GenericKubernetesResource nftablesProbe(String node, String nftables) {
    return reported(node, Map.of("iptables-nft", "available", "nftables", nftables));
  }

  /** {@code node}'s probe report of a minute ago, with these verdicts. */
  private static GenericKubernetesResource reported(String node, Map<String, String> verdicts) {
    return K8s.probe(node, Scenario.NOW.minusSeconds(60), verdicts, Map.of());
  }
}
