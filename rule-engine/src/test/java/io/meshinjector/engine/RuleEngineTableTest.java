package io.meshinjector.engine;

import static io.meshinjector.engine.testing.K8s.AL2023;
import static io.meshinjector.engine.testing.K8s.CENTOS7;
import static io.meshinjector.engine.testing.K8s.RHEL8;
import static io.meshinjector.engine.testing.K8s.UBUNTU;
import static io.meshinjector.engine.testing.K8s.affinity;
import static io.meshinjector.engine.testing.K8s.cordon;
import static io.meshinjector.engine.testing.K8s.enabled;
import static io.meshinjector.engine.testing.K8s.namespace;
import static io.meshinjector.engine.testing.K8s.node;
import static io.meshinjector.engine.testing.K8s.pod;
import static io.meshinjector.engine.testing.K8s.probe;
import static io.meshinjector.engine.testing.K8s.req;
import static io.meshinjector.engine.testing.K8s.taint;
import static io.meshinjector.engine.testing.K8s.tolerate;
import static io.meshinjector.engine.testing.Scenario.NOW;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.testing.Scenario;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rule engine, row by row: every kind of node failure it routes around, then mixed clusters,
 * DaemonSets, taints, unknown nodes, annotations, Pod Security and kubelet versions.
 */
class RuleEngineTableTest {
  private static final Namespace SHOP = enabled("shop");
  private static final Namespace RESTRICTED =
      namespace(
          "secure",
          Map.of("mesh-injector.io/inject", "enabled"),
          Map.of("pod-security.kubernetes.io/enforce", "restricted"));
  private static final Namespace BASELINE =
      namespace(
          "base",
          Map.of("inject", "enabled"),
          Map.of("pod-security.kubernetes.io/enforce", "baseline"));

  private static final Node RHEL_1 = node("rhel-1", RHEL8, "v1.31.0");
  private static final Node RHEL_2 = node("rhel-2", RHEL8, "v1.31.0");
  private static final Node CENTOS_1 = node("centos-1", CENTOS7, "v1.31.0");

  private static final Map<String, String> NAT_MISSING =
      Map.of("iptables-legacy", "unavailable", "iptables-nft", "unavailable", "cni", "absent");

  @ParameterizedTest(name = "{0}")
  @MethodSource("failureTable")
  void preventsTheFieldFailures(Scenario s) {
    s.verify();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("placement")
  void placesOnEveryCandidate(Scenario s) {
    s.verify();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gate")
  void gatesAndAnnotations(Scenario s) {
    s.verify();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("injectSpellings")
  void readsBothSpellingsOfTheInjectAnnotation(Scenario s) {
    s.verify();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sources")
  void verdictSources(Scenario s) {
    s.verify();
  }

  static Stream<Scenario> failureTable() {
    return Stream.of(
        Scenario.of("RHEL 8.10 nodes only do nft: init in nft mode, never legacy")
            .cluster(SHOP, RHEL_1, RHEL_2)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .constraint(null)
            .trace("iptables-legacy unavailable (inference: osImage 'Red Hat Enterprise Linux 8.10")
            .noWarnings(),
        Scenario.of("nat modules missing, no CNI: refused with the fix")
            .cluster(SHOP, RHEL_1, probe("rhel-1", NOW, NAT_MISSING, Map.of()))
            .pod(pod("shop"))
            .refuses("no-viable-path")
            .reason("rhel-1", "iptables-nft unavailable (probe", "cni absent (probe")
            .reason("install the mesh CNI plugin", "load the ip_tables and iptable_nat"),
        Scenario.of("nat modules missing, noViablePath skip: admitted untouched with a warning")
            .cluster(SHOP, RHEL_1, probe("rhel-1", NOW, NAT_MISSING, Map.of()))
            .config("policy: {noViablePath: skip}")
            .pod(pod("shop"))
            .skips("no-viable-path")
            .warning("admitted without injection"),
        Scenario.of("nat modules missing but the mesh CNI is ready: CNI path, pinned")
            .cluster(
                SHOP,
                RHEL_1,
                probe(
                    "rhel-1",
                    NOW,
                    Map.of("iptables-legacy", "unavailable", "iptables-nft", "unavailable"),
                    Map.of()))
            .cniReady("rhel-1")
            .pod(pod("shop"))
            .injects("cni native-sidecar await")
            .constraint("capability.mesh-injector.io/cni In [ready]")
            .trace("cni ready (live"),
        Scenario.of("Pod Security restricted forbids NET_ADMIN: CNI path with the validator")
            .cluster(RESTRICTED, RHEL_1, RHEL_2)
            .cniReady("rhel-1", "rhel-2")
            .pod(pod("secure"))
            .injects("cni native-sidecar await")
            .constraint("capability.mesh-injector.io/cni In [ready]")
            .trace("Pod Security 'restricted' forbids NET_ADMIN/NET_RAW"),
        Scenario.of("Pod Security restricted without CNI: refused, naming the CNI as the fix")
            .cluster(RESTRICTED, RHEL_1)
            .pod(pod("secure"))
            .refuses("no-viable-path")
            .reason("cni unknown", "install the mesh CNI plugin"),
        Scenario.of("Pod Security baseline asks for init: refused, naming Pod Security")
            .cluster(BASELINE, RHEL_1)
            .cniReady("rhel-1")
            .pod(pod("base", Map.of("mesh-injector.io/redirect", "init")).build())
            .refuses("pod-security")
            .reason("'baseline'", "NET_ADMIN", "the pod asks for mesh-injector.io/redirect: init"),
        Scenario.of("Pod Security baseline, pod asks for init, no cni preferred: names both")
            .cluster(BASELINE, RHEL_1)
            .config("policy: {preference: [init/nft]}")
            .pod(pod("base", Map.of("mesh-injector.io/redirect", "init")).build())
            .refuses("pod-security")
            .reason(
                "the pod asks for mesh-injector.io/redirect: init", "add cni to policy.preference"),
        Scenario.of("Pod Security restricted, preference lists only init: refused naming it")
            .cluster(RESTRICTED, RHEL_1)
            .cniReady("rhel-1")
            .config("policy: {preference: [init/nft]}")
            .pod(pod("secure"))
            .refuses("pod-security")
            .reason("'restricted'", "NET_ADMIN", "policy.preference [init/nft]", "add cni")
            .reasonOmits("the pod asks"),
        Scenario.of("CNI race: a new node whose CNI is not ready yet takes no CNI pod")
            .cluster(RESTRICTED, RHEL_1, RHEL_2, node("rhel-new", RHEL8, "v1.31.0"))
            .cniReady("rhel-1", "rhel-2")
            .pod(pod("secure"))
            .injects("cni native-sidecar await")
            .constraint("capability.mesh-injector.io/cni In [ready]")
            .warning("constrained to the 2 of 3 candidate nodes where cni works", "rhel-new"),
        Scenario.of("EKS exit status 127: probe marks cni absent although its pod is Ready")
            .cluster(
                SHOP,
                node("ip-10-0-1-5", AL2023, "v1.31.0-eks-a737599"),
                probe(
                    "ip-10-0-1-5",
                    NOW,
                    Map.of(
                        "cni",
                        "absent",
                        "iptables-nft",
                        "available",
                        "iptables-legacy",
                        "available"),
                    Map.of(
                        "reason.cni",
                        "CNI iptables-mode nft needs iptables-nft: set the CNI's iptablesMode to plain")))
            .cniReady("ip-10-0-1-5")
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .trace("cni absent (probe", "set the CNI's iptablesMode to plain"),
        Scenario.of("app starts before the proxy: the await hook is on by default")
            .cluster(SHOP, RHEL_1)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await"),
        Scenario.of("Jobs: native sidecar when every candidate kubelet is >= 1.29")
            .cluster(
                SHOP, node("n1", RHEL8, "v1.29.3-gke.1093000"), node("n2", RHEL8, "v1.30.4+k3s1"))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .constraint(null),
        Scenario.of("CNI bin dir mismatch: probe marks cni absent, init path instead")
            .cluster(
                SHOP,
                RHEL_1,
                probe(
                    "rhel-1",
                    NOW,
                    Map.of("cni", "absent"),
                    Map.of(
                        "reason.cni",
                        "linkerd-cni is in /etc/cni/bin but containerd reads /opt/cni/bin")))
            .cniReady("rhel-1")
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .trace("/etc/cni/bin but containerd reads /opt/cni/bin"));
  }

  static Stream<Scenario> placement() {
    Node centos2 = node("centos-2", CENTOS7, "v1.31.0");
    Node legacyTainted =
        taint(node("centos-t", CENTOS7, "v1.31.0"), "dedicated", "legacy", "NoSchedule");
    Node centosControlPlane =
        cordon(
            taint(
                node("centos-cp", CENTOS7, "v1.31.0"),
                "node-role.kubernetes.io/control-plane",
                null,
                "NoSchedule"));
    Node kube23 = node("old-23", RHEL8, "v1.23.17");
    Node kube28 = node("old-28", RHEL8, "v1.28.9-eks-036c24b");
    Node kube29 = node("n-29", RHEL8, "v1.29.0");
    Node kube31 = node("n-31", RHEL8, "v1.31.2");
    return Stream.of(
        Scenario.of("mixed RHEL 8 / CentOS 7, constrain: nft on the RHEL nodes")
            .cluster(SHOP, RHEL_1, RHEL_2, CENTOS_1)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .constraint("capability.mesh-injector.io/iptables-nft In [available, unknown]")
            .warning("2 of 3 candidate nodes", "centos-1"),
        Scenario.of("mixed RHEL 8 / CentOS 7, legacy majority: legacy on the CentOS nodes")
            .cluster(SHOP, RHEL_1, CENTOS_1, centos2)
            .pod(pod("shop"))
            .injects("init/legacy native-sidecar await")
            .constraint("capability.mesh-injector.io/iptables-legacy In [available, unknown]"),
        Scenario.of("mixed RHEL 8 / CentOS 7, reject: refused naming both classes")
            .cluster(SHOP, RHEL_1, CENTOS_1)
            .config("policy: {mixedNodes: reject}")
            .pod(pod("shop"))
            .refuses("mixed-nodes")
            .reason(
                "centos-1", "rhel-1", "iptables-nft unavailable", "iptables-legacy unavailable"),
        Scenario.of("mixed, reject: a class on which every path works is not listed as lacking")
            .cluster(SHOP, node("amz", AL2023, "v1.31.0"), RHEL_1, CENTOS_1)
            .config("policy: {mixedNodes: reject, preference: [init/nft, init/legacy]}")
            .pod(pod("shop"))
            .refuses("mixed-nodes")
            .reason("centos-1) lacks init/nft", "rhel-1) lacks init/legacy")
            .reasonOmits("amz", "lacks ;"),
        Scenario.of("mixed, labels not published: constrain acts as reject")
            .cluster(SHOP, RHEL_1, CENTOS_1)
            .config("policy: {publishLabels: false}")
            .pod(pod("shop"))
            .refuses("mixed-nodes")
            .reason("publishLabels is off"),
        Scenario.of("mixed, nodeSelector picks the CentOS node: legacy, no constraint")
            .cluster(
                SHOP,
                node("rhel-x", RHEL8, "v1.31.0", "pool=a"),
                node("centos-x", CENTOS7, "v1.31.0", "pool=b"))
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .withNodeSelector(Map.of("pool", "b"))
                    .endSpec()
                    .build())
            .injects("init/legacy native-sidecar await")
            .constraint(null),
        Scenario.of("DaemonSet pod pinned by matchFields metadata.name: one candidate")
            .cluster(SHOP, RHEL_1, CENTOS_1)
            .pod(
                affinity(
                        pod("shop", Map.of()),
                        List.of(),
                        List.of(req("metadata.name", "In", "centos-1")))
                    .build())
            .injects("init/legacy native-sidecar await")
            .constraint(null)
            .trace("1 candidate node(s) in 1 capability class"),
        Scenario.of("affinity NotIn excludes the CentOS pool")
            .cluster(
                SHOP,
                node("r", RHEL8, "v1.31.0", "os=rhel"),
                node("c", CENTOS7, "v1.31.0", "os=centos"))
            .pod(
                affinity(pod("shop", Map.of()), List.of(req("os", "NotIn", "centos")), List.of())
                    .build())
            .injects("init/nft native-sidecar await")
            .constraint(null),
        Scenario.of("affinity Gt selects nodes by a numeric label")
            .cluster(
                SHOP, node("r", RHEL8, "v1.31.0", "gen=5"), node("c", CENTOS7, "v1.31.0", "gen=3"))
            .pod(affinity(pod("shop", Map.of()), List.of(req("gen", "Gt", "4")), List.of()).build())
            .injects("init/nft native-sidecar await")
            .constraint(null),
        Scenario.of("untolerated NoSchedule taint keeps the legacy node out")
            .cluster(SHOP, RHEL_1, legacyTainted)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .constraint(null),
        Scenario.of("tolerated taint brings the legacy node back: constrained")
            .cluster(SHOP, RHEL_1, RHEL_2, legacyTainted)
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .withTolerations(tolerate("dedicated", "Equal", "legacy", "NoSchedule"))
                    .endSpec()
                    .build())
            .injects("init/nft native-sidecar await")
            .constraint("capability.mesh-injector.io/iptables-nft In [available, unknown]"),
        Scenario.of("toleration with empty key and Exists tolerates every taint")
            .cluster(SHOP, RHEL_1, legacyTainted)
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .withTolerations(tolerate(null, "Exists", null, null))
                    .endSpec()
                    .build())
            .injects("init/nft native-sidecar await")
            .constraint("capability.mesh-injector.io/iptables-nft In [available, unknown]"),
        Scenario.of("nodeName on a cordoned CentOS control-plane node with a NoSchedule taint")
            .cluster(SHOP, RHEL_1, centosControlPlane)
            .pod(new PodBuilder(pod("shop")).editSpec().withNodeName("centos-cp").endSpec().build())
            .injects("init/legacy native-sidecar await")
            .constraint(null)
            .trace("1 candidate node(s) in 1 capability class")
            .noWarnings(),
        Scenario.of("nodeName on a node with an untolerated NoExecute taint: the kubelet evicts")
            .cluster(SHOP, RHEL_1, taint(CENTOS_1, "gpu", "a100", "NoExecute"))
            .pod(new PodBuilder(pod("shop")).editSpec().withNodeName("centos-1").endSpec().build())
            .injects("init/nft container await")
            .warning("no known node matches"),
        Scenario.of("nodeName on a node whose NoExecute taint the pod tolerates with Equal")
            .cluster(SHOP, RHEL_1, taint(CENTOS_1, "gpu", "a100", "NoExecute"))
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .withNodeName("centos-1")
                    .withTolerations(tolerate("gpu", "Equal", "a100", "NoExecute"))
                    .endSpec()
                    .build())
            .injects("init/legacy native-sidecar await")
            .constraint(null),
        Scenario.of("nodeName with a nodeSelector the node does not match: the kubelet refuses")
            .cluster(SHOP, RHEL_1, node("centos-x", CENTOS7, "v1.31.0", "pool=b"))
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .withNodeName("centos-x")
                    .withNodeSelector(Map.of("pool", "a"))
                    .endSpec()
                    .build())
            .injects("init/nft container await")
            .warning("no known node matches"),
        Scenario.of("cordoned node: the scheduler places no new pod there")
            .cluster(SHOP, RHEL_1, cordon(CENTOS_1))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .constraint(null),
        Scenario.of("unknown nodes: nft by default, with a warning")
            .cluster(SHOP, node("u1", UBUNTU, "v1.31.0"))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .warning("iptables-nft is unknown", "assumed available"),
        Scenario.of("no nodes known at all: decided for an unknown node, with warnings")
            .cluster(SHOP)
            .pod(pod("shop"))
            .injects("init/nft container await")
            .warning("the cluster view has no nodes"),
        Scenario.of("kubelet 1.23: regular proxy container")
            .cluster(SHOP, kube23)
            .pod(pod("shop"))
            .injects("init/nft container await"),
        Scenario.of("kubelet 1.28: regular proxy container")
            .cluster(SHOP, kube28)
            .pod(pod("shop"))
            .injects("init/nft container await"),
        Scenario.of("kubelet 1.29: native sidecar")
            .cluster(SHOP, kube29)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await"),
        Scenario.of("kubelet 1.31: native sidecar")
            .cluster(SHOP, kube31)
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await"),
        Scenario.of("kubelets 1.28 and 1.31 mixed: regular container, no constraint")
            .cluster(SHOP, kube28, kube31)
            .pod(pod("shop"))
            .injects("init/nft container await")
            .constraint(null),
        Scenario.of("native sidecar asked for on mixed kubelets: constrained to >= 1.29")
            .cluster(SHOP, kube28, kube31)
            .pod(pod("shop", Map.of("mesh-injector.io/native-sidecar", "enabled")).build())
            .injects("init/nft native-sidecar await")
            .constraint("capability.mesh-injector.io/native-sidecar In [supported]"),
        Scenario.of("native sidecar asked for where no kubelet supports it: refused")
            .cluster(SHOP, kube23, kube28)
            .pod(pod("shop", Map.of("mesh-injector.io/native-sidecar", "enabled")).build())
            .refuses("no-viable-path")
            .reason("old-23", "native-sidecar unsupported"),
        Scenario.of("native sidecar asked for where no kubelet supports it, noViablePath skip")
            .cluster(SHOP, kube23, kube28)
            .config("policy: {noViablePath: skip}")
            .pod(pod("shop", Map.of("mesh-injector.io/native-sidecar", "enabled")).build())
            .skips("no-viable-path")
            .reason("old-23", "native-sidecar unsupported")
            .warning("admitted without injection (policy.noViablePath: skip)"),
        Scenario.of("native sidecar disabled by annotation")
            .cluster(SHOP, kube31)
            .pod(pod("shop", Map.of("mesh-injector.io/native-sidecar", "disabled")).build())
            .injects("init/nft container await"),
        Scenario.of("CNI ready everywhere: preferred, pinned for nodes that join later")
            .cluster(SHOP, RHEL_1, RHEL_2)
            .cniReady("rhel-1", "rhel-2")
            .pod(pod("shop"))
            .injects("cni native-sidecar await")
            .constraint("capability.mesh-injector.io/cni In [ready]")
            .trace("policy.pinCni: always"),
        Scenario.of("pinCni when-mixed: no pin when every candidate is ready")
            .cluster(SHOP, RHEL_1, RHEL_2)
            .cniReady("rhel-1", "rhel-2")
            .config("policy: {pinCni: when-mixed}")
            .pod(pod("shop"))
            .injects("cni native-sidecar await")
            .constraint(null),
        Scenario.of("CNI ready on some nodes only: nft works everywhere, so init wins")
            .cluster(SHOP, RHEL_1, RHEL_2)
            .cniReady("rhel-1")
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .constraint(null));
  }

  static Stream<Scenario> gate() {
    return Stream.of(
        Scenario.of("namespace not enabled: skipped")
            .cluster(namespace("plain", Map.of(), Map.of()), RHEL_1)
            .pod(pod("plain"))
            .skips("not-enabled"),
        Scenario.of("pod enabled in a namespace that is not: injected")
            .cluster(namespace("plain", Map.of(), Map.of()), RHEL_1)
            .pod(pod("plain", Map.of("mesh-injector.io/inject", "enabled")).build())
            .injects("init/nft native-sidecar await"),
        Scenario.of("pod disabled in an enabled namespace: the pod wins")
            .cluster(SHOP, RHEL_1)
            .pod(pod("shop", Map.of("mesh-injector.io/inject", "disabled")).build())
            .skips("injection-disabled"),
        Scenario.of("namespace disabled: skipped")
            .cluster(
                namespace("off", Map.of("mesh-injector.io/inject", "disabled"), Map.of()), RHEL_1)
            .pod(pod("off"))
            .skips("injection-disabled"),
        Scenario.of("excluded namespace: skipped whatever it says")
            .cluster(enabled("kube-system"), RHEL_1)
            .pod(pod("kube-system"))
            .skips("excluded-namespace"),
        Scenario.of("hostNetwork pod: skipped")
            .cluster(SHOP, RHEL_1)
            .pod(new PodBuilder(pod("shop")).editSpec().withHostNetwork(true).endSpec().build())
            .skips("host-network"),
        Scenario.of("already injected: skipped, which makes injection idempotent")
            .cluster(SHOP, RHEL_1)
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .addToInitContainers(new ContainerBuilder().withName("linkerd-proxy").build())
                    .endSpec()
                    .build())
            .skips("already-injected"),
        Scenario.of("istio-proxy present: another mesh, skipped")
            .cluster(SHOP, RHEL_1)
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .addToContainers(new ContainerBuilder().withName("istio-proxy").build())
                    .endSpec()
                    .build())
            .skips("other-mesh")
            .reason("istio-proxy"),
        Scenario.of("istio-validation init container: another mesh, skipped")
            .cluster(SHOP, RHEL_1)
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .addToInitContainers(
                        new ContainerBuilder().withName("istio-validation").build())
                    .endSpec()
                    .build())
            .skips("other-mesh"),
        Scenario.of("linkerd-init without our proxy: skipped")
            .cluster(SHOP, RHEL_1)
            .pod(
                new PodBuilder(pod("shop"))
                    .editSpec()
                    .addToInitContainers(new ContainerBuilder().withName("linkerd-init").build())
                    .endSpec()
                    .build())
            .skips("other-mesh"),
        Scenario.of("invalid redirect annotation: refused naming the annotation and values")
            .cluster(SHOP, RHEL_1)
            .pod(pod("shop", Map.of("mesh-injector.io/redirect", "ebpf")).build())
            .refuses("invalid-annotation")
            .reason("mesh-injector.io/redirect", "'ebpf'", "auto, init, cni"),
        Scenario.of("invalid iptables-mode annotation: refused")
            .cluster(SHOP, RHEL_1)
            .pod(pod("shop", Map.of("mesh-injector.io/iptables-mode", "nftables")).build())
            .refuses("invalid-annotation")
            .reason("mesh-injector.io/iptables-mode", "auto, legacy, nft, plain"),
        Scenario.of("invalid proxy-await annotation: refused")
            .cluster(SHOP, RHEL_1)
            .pod(pod("shop", Map.of("mesh-injector.io/proxy-await", "yes")).build())
            .refuses("invalid-annotation")
            .reason("mesh-injector.io/proxy-await", "enabled, disabled"),
        Scenario.of("invalid inject annotation on the namespace: refused naming the namespace")
            .cluster(namespace("typo", Map.of("mesh-injector.io/inject", "true"), Map.of()), RHEL_1)
            .pod(pod("typo"))
            .refuses("invalid-annotation")
            .reason("on namespace typo", "'true'"),
        Scenario.of("valid pod inject annotation wins over an invalid namespace one")
            .cluster(namespace("typo", Map.of("mesh-injector.io/inject", "true"), Map.of()), RHEL_1)
            .pod(pod("typo", Map.of("mesh-injector.io/inject", "enabled")).build())
            .injects("init/nft native-sidecar await"),
        Scenario.of("pod disabled in a namespace with an invalid inject annotation: skipped")
            .cluster(namespace("typo", Map.of("mesh-injector.io/inject", "true"), Map.of()), RHEL_1)
            .pod(pod("typo", Map.of("mesh-injector.io/inject", "disabled")).build())
            .skips("injection-disabled"),
        Scenario.of("proxy-await disabled")
            .cluster(SHOP, RHEL_1)
            .pod(pod("shop", Map.of("mesh-injector.io/proxy-await", "disabled")).build())
            .injects("init/nft native-sidecar"),
        Scenario.of("iptables-mode plain asked for: init/plain")
            .cluster(SHOP, RHEL_1)
            .pod(pod("shop", Map.of("mesh-injector.io/iptables-mode", "plain")).build())
            .injects("init/plain native-sidecar await"),
        Scenario.of("iptables-mode legacy on an nft-only node: refused")
            .cluster(SHOP, RHEL_1)
            .pod(
                pod(
                        "shop",
                        Map.of(
                            "mesh-injector.io/iptables-mode",
                            "legacy",
                            "mesh-injector.io/redirect",
                            "init"))
                    .build())
            .refuses("no-viable-path")
            .reason("iptables-legacy unavailable"),
        Scenario.of("redirect cni asked for where CNI is ready")
            .cluster(SHOP, RHEL_1)
            .cniReady("rhel-1")
            .pod(pod("shop", Map.of("mesh-injector.io/redirect", "cni")).build())
            .injects("cni native-sidecar await"),
        Scenario.of("redirect cni asked for where the preference has no cni: refused naming it")
            .cluster(SHOP, RHEL_1)
            .cniReady("rhel-1")
            .config("policy: {preference: [init/nft, init/legacy]}")
            .pod(pod("shop", Map.of("mesh-injector.io/redirect", "cni")).build())
            .refuses("invalid-annotation")
            .reason(
                "mesh-injector.io/redirect: cni",
                "policy.preference [init/nft, init/legacy]",
                "remove the annotation")
            .reasonOmits("Pod Security"),
        Scenario.of("redirect init asked for where CNI is preferred and ready")
            .cluster(SHOP, RHEL_1)
            .cniReady("rhel-1")
            .pod(pod("shop", Map.of("mesh-injector.io/redirect", "init")).build())
            .injects("init/nft native-sidecar await"),
        Scenario.of("operator lists init/plain only")
            .cluster(SHOP, CENTOS_1)
            .config("policy: {preference: [init/plain]}\ncapabilities: {plainBackend: legacy}")
            .pod(pod("shop"))
            .injects("init/plain native-sidecar await"),
        Scenario.of("preference without init: the pod cannot ask for NET_ADMIN")
            .cluster(SHOP, RHEL_1)
            .cniReady("rhel-1")
            .config("policy: {preference: [cni]}")
            .pod(pod("shop", Map.of("mesh-injector.io/redirect", "init")).build())
            .refuses("invalid-annotation")
            .reason(
                "mesh-injector.io/redirect: init",
                "policy.preference [cni]",
                "does not offer the init path"),
        Scenario.of(
                "preference without init: an iptables-mode annotation is ignored, with a warning")
            .cluster(SHOP, RHEL_1)
            .cniReady("rhel-1")
            .config("policy: {preference: [cni]}")
            .pod(pod("shop", Map.of("mesh-injector.io/iptables-mode", "legacy")).build())
            .injects("cni native-sidecar await")
            .warning("mesh-injector.io/iptables-mode is ignored", "offers no init path"));
  }

  /**
   * The opt-in annotation under its two spellings: {@code inject} (documented) and {@code
   * mesh-injector.io/inject} (alias). The pod's wins over the namespace's; on one object, two that
   * disagree give {@code disabled} and a warning naming both keys.
   */
  static Stream<Scenario> injectSpellings() {
    Map<String, String> conflict =
        Map.of("inject", "enabled", "mesh-injector.io/inject", "disabled");
    Map<String, String> reverse =
        Map.of("inject", "disabled", "mesh-injector.io/inject", "enabled");
    return Stream.of(
        Scenario.of("namespace inject: enabled (the documented key): injected")
            .cluster(namespace("bare", Map.of("inject", "enabled"), Map.of()), RHEL_1)
            .pod(pod("bare"))
            .injects("init/nft native-sidecar await")
            .trace("injection enabled by the namespace bare (inject: enabled)")
            .noWarnings(),
        Scenario.of("namespace mesh-injector.io/inject: enabled (the alias): injected")
            .cluster(
                namespace("alias", Map.of("mesh-injector.io/inject", "enabled"), Map.of()), RHEL_1)
            .pod(pod("alias"))
            .injects("init/nft native-sidecar await")
            .trace("injection enabled by the namespace alias (mesh-injector.io/inject: enabled)")
            .noWarnings(),
        Scenario.of("namespace inject: disabled: skipped")
            .cluster(namespace("off", Map.of("inject", "disabled"), Map.of()), RHEL_1)
            .pod(pod("off"))
            .skips("injection-disabled")
            .reason("injection disabled by the namespace off")
            .noWarnings(),
        Scenario.of("namespace with both spellings enabled: injected, no warning")
            .cluster(
                namespace(
                    "both",
                    Map.of("inject", "enabled", "mesh-injector.io/inject", "enabled"),
                    Map.of()),
                RHEL_1)
            .pod(pod("both"))
            .injects("init/nft native-sidecar await")
            .noWarnings(),
        Scenario.of("namespace inject: enabled, mesh-injector.io/inject: disabled: disabled wins")
            .cluster(namespace("mixed", conflict, Map.of()), RHEL_1)
            .pod(pod("mixed"))
            .skips("injection-disabled")
            .warning(
                "namespace mixed carries both inject: enabled and mesh-injector.io/inject:"
                    + " disabled",
                "disabled wins")
            .trace("injection disabled by the namespace mixed"),
        Scenario.of("namespace inject: disabled, mesh-injector.io/inject: enabled: disabled wins")
            .cluster(namespace("mixed", reverse, Map.of()), RHEL_1)
            .pod(pod("mixed"))
            .skips("injection-disabled")
            .warning(
                "carries both inject: disabled and mesh-injector.io/inject: enabled",
                "disabled wins"),
        Scenario.of("pod with both spellings disagreeing in an enabled namespace: disabled wins")
            .cluster(SHOP, RHEL_1)
            .pod(pod("shop", conflict).build())
            .skips("injection-disabled")
            .reason("injection disabled by the pod")
            .warning("the pod carries both inject: enabled and mesh-injector.io/inject: disabled"),
        Scenario.of("pod inject: enabled wins over a namespace whose spellings disagree")
            .cluster(namespace("mixed", conflict, Map.of()), RHEL_1)
            .pod(pod("mixed", Map.of("inject", "enabled")).build())
            .injects("init/nft native-sidecar await")
            .trace("injection enabled by the pod (inject: enabled)")
            .noWarnings(),
        Scenario.of("pod inject: disabled wins over the namespace's mesh-injector.io/inject")
            .cluster(
                namespace("alias", Map.of("mesh-injector.io/inject", "enabled"), Map.of()), RHEL_1)
            .pod(pod("alias", Map.of("inject", "disabled")).build())
            .skips("injection-disabled")
            .reason("injection disabled by the pod"),
        Scenario.of("pod mesh-injector.io/inject: enabled wins over the namespace's inject")
            .cluster(namespace("off", Map.of("inject", "disabled"), Map.of()), RHEL_1)
            .pod(pod("off", Map.of("mesh-injector.io/inject", "enabled")).build())
            .injects("init/nft native-sidecar await"),
        Scenario.of("invalid inject value on the namespace: refused naming the bare key")
            .cluster(namespace("typo", Map.of("inject", "yes"), Map.of()), RHEL_1)
            .pod(pod("typo"))
            .refuses("invalid-annotation")
            .reason("annotation inject on namespace typo", "'yes'", "enabled, disabled"),
        Scenario.of("both spellings, one invalid: refused naming the invalid one")
            .cluster(
                namespace(
                    "typo", Map.of("inject", "enabled", "mesh-injector.io/inject", "on"), Map.of()),
                RHEL_1)
            .pod(pod("typo"))
            .refuses("invalid-annotation")
            .reason("annotation mesh-injector.io/inject on namespace typo", "'on'"));
  }

  static Stream<Scenario> sources() {
    return Stream.of(
        Scenario.of("probe beats osImage inference, and the trace says so")
            .cluster(
                SHOP,
                CENTOS_1,
                probe(
                    "centos-1",
                    NOW,
                    Map.of("iptables-legacy", "unavailable", "iptables-nft", "available"),
                    Map.of()))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .trace("iptables-nft available (probe"),
        Scenario.of("probe verdict older than probeTtl counts as unknown: inference again")
            .cluster(
                SHOP,
                CENTOS_1,
                probe(
                    "centos-1",
                    NOW.minus(Duration.ofHours(2)),
                    Map.of("iptables-legacy", "unavailable", "iptables-nft", "available"),
                    Map.of()))
            .pod(pod("shop"))
            .injects("init/legacy native-sidecar await")
            .trace("iptables-legacy available (inference"),
        Scenario.of("operator override beats the probe")
            .cluster(
                SHOP,
                node("c", CENTOS7, "v1.31.0", "pool=odd"),
                probe("c", NOW, Map.of("iptables-legacy", "available"), Map.of()))
            .config(
                "capabilities:\n  overrides:\n  - nodeSelector: {pool: odd}\n    set: {iptables-legacy: unavailable, iptables-nft: available}")
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .trace("iptables-nft available (override: override for {pool=odd})"),
        Scenario.of("probe unknown falls through to inference")
            .cluster(
                SHOP,
                RHEL_1,
                probe(
                    "rhel-1",
                    NOW,
                    Map.of("iptables-nft", "unknown"),
                    Map.of("reason.iptables-nft", "proc/modules unreadable")))
            .pod(pod("shop"))
            .injects("init/nft native-sidecar await")
            .trace("iptables-nft available (inference"),
        Scenario.of("assumeUnknown iptables not-viable on an unknown node: refused")
            .cluster(SHOP, node("u1", UBUNTU, "v1.31.0"))
            .config("capabilities: {assumeUnknown: {iptables: not-viable}}")
            .pod(pod("shop"))
            .refuses("no-viable-path"));
  }
}
