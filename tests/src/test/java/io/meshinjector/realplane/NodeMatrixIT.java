package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.Cli;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.NodeCapabilities;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.ServedRelease;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.Workloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The node matrix as the API server and the scheduler see it: dual-stack Nodes (a v1.32 API server
 * takes an IPv4 and an IPv6 {@code spec.podCIDRs} on a Node without a dual-stack service range),
 * one whose probe says the IPv6 redirect does not work there, and a Windows Node. What the webhook
 * reads of them comes through the informers' trimmed Nodes.
 */
@ResourceLock(SharedPlane.PLANE_LANE)
class NodeMatrixIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String SHOP = "shop";
  static final Map<String, String> DUAL = Map.of("pool", "dual");

  static Serve serve;
  static KubernetesClient admin;

  @BeforeAll
  static void installAndServe() throws Exception {
    admin = PLANE.admin();
    FakeNodes.Shape rhel = FakeNodes.Shape.of(FakeNodes.RHEL8, FakeNodes.KUBELET, DUAL);
    FakeNodes.create(admin, "dual-ok", rhel.withPodCidrs("10.244.11.0/24", "fd00:10:244:11::/64"));
    FakeNodes.create(admin, "dual-bad", rhel.withPodCidrs("10.244.12.0/24", "fd00:10:244:12::/64"));
    FakeNodes.create(
        admin,
        "win-1",
        FakeNodes.Shape.of("Windows Server 2022 Datacenter", FakeNodes.KUBELET, Map.of())
            .withOperatingSystem("windows"));
    // the chart installs the NodeCapability CRD; the probe's reports come after it
    serve = ServedRelease.install(PLANE, "mi", NS, Duration.ofSeconds(30)).serve();
    Instant now = Instant.now();
    NodeCapabilities.report(
        admin,
        "dual-ok",
        now,
        Map.of(
            CapabilityKey.IPTABLES_NFT,
            Verdict.AVAILABLE,
            CapabilityKey.IP6TABLES_NFT,
            Verdict.AVAILABLE));
    NodeCapabilities.report(
        admin,
        "dual-bad",
        now,
        Map.of(
            CapabilityKey.IPTABLES_NFT,
            Verdict.AVAILABLE,
            CapabilityKey.IP6TABLES_NFT,
            Verdict.UNAVAILABLE));
    Await.until(
        "the published verdicts of the dual-stack and Windows nodes",
        Duration.ofSeconds(30),
        () ->
            "unavailable".equals(label("dual-bad", CapabilityKey.IP6TABLES_NFT))
                && "present".equals(label("dual-ok", CapabilityKey.IPV6_PODS))
                && "windows".equals(label("win-1", CapabilityKey.OS)));
    Workloads.optedIn(admin, SHOP, Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() {
    if (serve != null) {
      serve.close();
    }
  }

  static String label(String node, CapabilityKey key) {
    return admin.nodes().withName(node).get().getMetadata().getLabels().get(key.label());
  }

  @Test
  void dualStackPodsRedirectIpv6AndAreBoundOnlyWhereThatWorks() {
    admin
        .apps()
        .deployments()
        .inNamespace(SHOP)
        .resource(Workloads.deployment("web", 4, Map.of(), Workloads.appSpec(DUAL)))
        .create();
    List<Pod> pods = Workloads.scheduled(admin, SHOP, "web", 4);
    for (Pod pod : pods) {
      assertThat(pod.getMetadata().getAnnotations())
          .containsEntry(
              "mesh-injector.io/decision", "init/nft native-sidecar await ipv6 constrained");
      Container init =
          pod.getSpec().getInitContainers().stream()
              .filter(c -> c.getName().equals("linkerd-init"))
              .findFirst()
              .orElseThrow();
      // Linkerd's proxy-init writes the IPv6 rules unless told --ipv6=false, which its own
      // injector passes only with disableIPv6 (the IPv4 pods here carry it)
      assertThat(init.getArgs()).isNotEmpty().doesNotContain("--ipv6=false");
      assertThat(pod.getSpec().getNodeName())
          .as("the node %s was bound to", pod.getMetadata().getName())
          .isEqualTo("dual-ok");
    }
  }

  @Test
  void aWindowsPodIsCreatedUninjectedWithAWarningKubectlShows() throws Exception {
    Path manifest = PLANE.dir("windows").resolve("windows-pod.yaml");
    Files.writeString(
        manifest,
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: iis
          namespace: shop
          labels: {app: iis}
        spec:
          os: {name: windows}
          nodeSelector: {kubernetes.io/os: windows}
          containers:
            - name: iis
              image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
        """);
    Cli.Result created =
        PLANE.kubectl("windows", Duration.ofSeconds(30), "create", "-f", manifest.toString());
    assertThat(created.exit()).as(created.err()).isZero();
    assertThat(created.err())
        .contains("Warning:")
        .contains("sets spec.os.name: windows")
        .contains("admitted without injection");
    Pod pod = admin.pods().inNamespace(SHOP).withName("iis").get();
    assertThat(
            Stream.concat(
                    pod.getSpec().getContainers().stream(),
                    pod.getSpec().getInitContainers() == null
                        ? Stream.empty()
                        : pod.getSpec().getInitContainers().stream())
                .map(Container::getName))
        .containsExactly("iis");
  }
}
