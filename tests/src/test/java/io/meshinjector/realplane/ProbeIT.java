package io.meshinjector.realplane;

import static io.meshinjector.plane.ClusterHygiene.NODE_CAPABILITY;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.Cli;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.NodeCapabilities;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.ServiceAccounts;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.Workloads;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The node probe on its own ServiceAccount's token, bound to a probe pod on its node as the kubelet
 * mounts it: it writes its node's NodeCapability, and the chart's admission policy refuses its
 * write to another node's.
 */
@ResourceLock(SharedPlane.PLANE_LANE)
class ProbeIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";

  static Release release;
  static Path probeKubeconfig;

  @BeforeAll
  static void install() throws Exception {
    KubePlane plane = PLANE.plane();
    KubernetesClient admin = plane.admin();
    FakeNodes.createRhel8(admin, Map.of(), "rhel-1", "rhel-2");
    release = Release.install(plane, "mi", NS, Map.of());
    String probeSa = release.fullname() + "-probe";
    // the DaemonSet's pod on rhel-1, as the kubelet would run it (no kubelet here: the object only)
    Pod probePod =
        admin
            .pods()
            .inNamespace(NS)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("probe-rhel-1")
                    .endMetadata()
                    .withSpec(
                        new PodSpecBuilder(Workloads.appSpec(Map.of()))
                            .withServiceAccountName(probeSa)
                            .withNodeName("rhel-1")
                            .build())
                    .build())
            .create();
    probeKubeconfig = ServiceAccounts.kubeconfigBoundTo(plane, NS, probeSa, probePod);
  }

  static Cli.Result probe(String node) throws Exception {
    return Cli.meshInjector(
        PLANE.dir("probe"),
        probeKubeconfig,
        Duration.ofSeconds(60),
        "probe",
        "--node",
        node,
        "--host-root",
        "/",
        "--interval",
        "0");
  }

  @Test
  void theProbeWritesItsOwnNodesCapabilitiesAndIsRefusedAnothers() throws Exception {
    KubernetesClient admin = PLANE.plane().admin();
    Cli.Result own = probe("rhel-1");
    assertThat(own.exit()).as(own.err()).isZero();
    GenericKubernetesResource written =
        admin.genericKubernetesResources(NODE_CAPABILITY).withName("rhel-1").get();
    assertThat(written).isNotNull();
    @SuppressWarnings("unchecked")
    Map<String, Object> status =
        (Map<String, Object>) written.getAdditionalProperties().get("status");
    assertThat(status).containsKeys("observedAt", "capabilities");
    // the API server prunes what the CRD's schema does not declare: sources must survive it
    assertThat(status.get("sources"))
        .isEqualTo(
            Map.of(
                "iptables-legacy", "files",
                "iptables-nft", "files",
                "ip6tables-legacy", "files",
                "ip6tables-nft", "files",
                "nftables", "files",
                "cni", "files"));

    GenericKubernetesResource other = NodeCapabilities.create(admin, "rhel-2");
    Cli.Result foreign = probe("rhel-2");
    assertThat(foreign.exit()).isNotZero();
    assertThat(foreign.out() + foreign.err())
        .contains("the node probe on rhel-1 may write only NodeCapability rhel-1, not rhel-2");
    GenericKubernetesResource after =
        admin.genericKubernetesResources(NODE_CAPABILITY).withName("rhel-2").get();
    assertThat(after.getMetadata().getResourceVersion())
        .isEqualTo(other.getMetadata().getResourceVersion());
    assertThat(after.getAdditionalProperties()).doesNotContainKey("status");
  }
}
