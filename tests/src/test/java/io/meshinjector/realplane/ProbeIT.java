package io.meshinjector.realplane;

import static io.meshinjector.plane.ClusterHygiene.NODE_CAPABILITY;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.Cli;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.ServiceAccounts;
import io.meshinjector.plane.Workloads;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The node probe on its own ServiceAccount's token, bound to a probe pod on its node as the kubelet
 * mounts it: it writes its node's NodeCapability, and the chart's admission policy refuses its
 * write to another node's.
 */
class ProbeIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";

  static Release release;
  static Path probeKubeconfig;

  @BeforeAll
  static void install() throws Exception {
    KubePlane plane = PLANE.plane();
    KubernetesClient admin = plane.admin();
    FakeNodes.create(admin, "rhel-1", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
    FakeNodes.create(admin, "rhel-2", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
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
    return Cli.run(
        PLANE.dir("probe"),
        probeKubeconfig,
        List.of(
            Serve.launcher().toString(),
            "probe",
            "--node",
            node,
            "--host-root",
            "/",
            "--interval",
            "0"),
        Duration.ofSeconds(60));
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
        .isEqualTo(Map.of("iptables-legacy", "files", "iptables-nft", "files", "cni", "files"));

    GenericKubernetesResource other =
        admin
            .genericKubernetesResources(NODE_CAPABILITY)
            .resource(
                new GenericKubernetesResourceBuilder()
                    .withApiVersion("mesh-injector.io/v1alpha1")
                    .withKind("NodeCapability")
                    .withNewMetadata()
                    .withName("rhel-2")
                    .endMetadata()
                    .build())
            .create();
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
