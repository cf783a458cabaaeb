package io.meshinjector.webhook.lists;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.cluster.NodeFacts;
import io.meshinjector.webhook.cluster.CniPodReadiness;
import io.meshinjector.webhook.support.ClusterFixtures;
import org.junit.jupiter.api.Test;

/** What survives trimming, and when a CNI pod makes its node ready. */
class TrimmedTest {

  private static Node fullNode() {
    NodeBuilder b =
        new NodeBuilder()
            .withNewMetadata()
            .withName("rhel-1")
            .withResourceVersion("42")
            .addToLabels("kubernetes.io/hostname", "rhel-1")
            .addToLabels("capability.mesh-injector.io/cni", "ready")
            .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
            .addNewManagedField()
            .withManager("kubelet")
            .endManagedField()
            .endMetadata()
            .withNewSpec()
            .withUnschedulable(true)
            .addNewTaint()
            .withKey("dedicated")
            .withValue("db")
            .withEffect("NoSchedule")
            .endTaint()
            .withPodCIDR("10.0.0.0/24")
            .withPodCIDRs("10.0.0.0/24", "fd00::/64")
            .withProviderID("aws:///eu-west-1a/i-0abc")
            .endSpec()
            .withNewStatus()
            .withNewNodeInfo()
            .withOsImage(ClusterFixtures.RHEL)
            .withKubeletVersion("v1.31.4")
            .withOperatingSystem("linux")
            .withKernelVersion("4.18.0")
            .endNodeInfo()
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .endStatus();
    for (int i = 0; i < 50; i++) {
      b.editStatus()
          .addNewImage()
          .withNames("registry/image-" + i + ":v1")
          .withSizeBytes(1L)
          .endImage()
          .endStatus();
    }
    return b.build();
  }

  @Test
  void aNodeKeepsWhatDecisionsReadAndNothingElse() {
    Node full = fullNode();
    Node trimmed = Trimmed.node(full);

    assertThat(NodeFacts.of(trimmed)).isEqualTo(NodeFacts.of(full));
    assertThat(trimmed.getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(trimmed.getMetadata().getManagedFields()).isEmpty();
    assertThat(trimmed.getMetadata().getAnnotations()).isEmpty();
    assertThat(trimmed.getStatus().getImages()).isEmpty();
    assertThat(trimmed.getStatus().getConditions()).isEmpty();
    assertThat(trimmed.getStatus().getNodeInfo().getKernelVersion()).isNull();
    assertThat(trimmed.getSpec().getProviderID()).isNull();
    // what the decision reads of the node's OS and pod ranges (issue 50)
    assertThat(trimmed.getStatus().getNodeInfo().getOperatingSystem()).isEqualTo("linux");
    assertThat(trimmed.getSpec().getPodCIDR()).isEqualTo("10.0.0.0/24");
    assertThat(trimmed.getSpec().getPodCIDRs()).containsExactly("10.0.0.0/24", "fd00::/64");
  }

  /** Values decoded separately for each node end up as one instance held by all of them. */
  @Test
  void nodesOfOnePoolShareTheirLabelValues() {
    String zoneA = new String("eu-west-1a".toCharArray());
    String zoneB = new String("eu-west-1a".toCharArray());
    Node a = Trimmed.node(withOs(withLabel(fullNode(), "topology.kubernetes.io/zone", zoneA)));
    Node b = Trimmed.node(withOs(withLabel(fullNode(), "topology.kubernetes.io/zone", zoneB)));

    assertThat(a.getMetadata().getLabels().get("topology.kubernetes.io/zone"))
        .isSameAs(b.getMetadata().getLabels().get("topology.kubernetes.io/zone"));
    assertThat(a.getStatus().getNodeInfo().getOsImage())
        .isSameAs(b.getStatus().getNodeInfo().getOsImage());
    assertThat(a.getStatus().getNodeInfo().getOperatingSystem())
        .isSameAs(b.getStatus().getNodeInfo().getOperatingSystem());
    assertThat(a.getMetadata().getLabels())
        .as("immutable: nothing may edit the cache in place")
        .isUnmodifiable();
    // and the view holds the very same map, not a third copy
    Node plain =
        Trimmed.node(
            new NodeBuilder(fullNode())
                .editMetadata()
                .removeFromLabels("capability.mesh-injector.io/cni")
                .endMetadata()
                .build());
    assertThat(NodeFacts.of(plain).labels()).isSameAs(plain.getMetadata().getLabels());
  }

  @Test
  void aLabelWithoutValueIsKeptEmptyAsKubernetesStoresIt() {
    Node node = fullNode();
    node.getMetadata().getLabels().put("pool", null);

    assertThat(Trimmed.node(node).getMetadata().getLabels()).containsEntry("pool", "");
  }

  /** The OS as decoding gives it, a string of each node's own. */
  private static Node withOs(Node node) {
    node.getStatus().getNodeInfo().setOperatingSystem(new String("linux".toCharArray()));
    return node;
  }

  private static Node withLabel(Node node, String key, String value) {
    node.getMetadata().getLabels().put(key, value);
    return node;
  }

  @Test
  void thePublishedLabelsAreOutputNotInput() {
    Node trimmed = Trimmed.node(fullNode());
    assertThat(Trimmed.publishedLabels(trimmed))
        .containsExactlyEntriesOf(java.util.Map.of("capability.mesh-injector.io/cni", "ready"));
    assertThat(Trimmed.withoutPublishedLabels(trimmed).getMetadata().getLabels())
        .containsOnlyKeys("kubernetes.io/hostname");
  }

  @Test
  void aCniPodMakesItsNodeReadyOnlyWhenBoundRunningReadyAndNotTerminating() {
    Pod ready = ClusterFixtures.cniPod("n1", true);
    assertThat(CniPodReadiness.readyNode(ready)).contains("n1");
    assertThat(CniPodReadiness.readyNode(Trimmed.cniPod(ready))).contains("n1");
    assertThat(CniPodReadiness.readyNode(ClusterFixtures.cniPod("n1", false))).isEmpty();
    assertThat(
            CniPodReadiness.readyNode(
                new PodBuilder(ready)
                    .editMetadata()
                    .withDeletionTimestamp("2026-11-24T00:00:00Z")
                    .endMetadata()
                    .build()))
        .isEmpty();
    assertThat(
            CniPodReadiness.readyNode(
                new PodBuilder(ready).editStatus().withPhase("Pending").endStatus().build()))
        .isEmpty();
    assertThat(
            CniPodReadiness.readyNode(
                new PodBuilder(ready).editSpec().withNodeName(null).endSpec().build()))
        .isEmpty();
    assertThat(CniPodReadiness.readyNode(new Pod())).isEmpty();
  }
}
