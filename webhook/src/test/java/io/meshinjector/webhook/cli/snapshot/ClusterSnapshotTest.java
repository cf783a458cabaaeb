package io.meshinjector.webhook.cli.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.webhook.support.ClusterFixtures;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One reading of the cluster, against fabric8's CRUD mock server. */
@EnableKubernetesMockClient(crud = true)
class ClusterSnapshotTest {
  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void registerCrd() {
    server.expectCustomResource(ClusterFixtures.nodeCapabilityCrd(false));
    for (String name : new String[] {"n1", "n2", "n3", "n4"}) {
      client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
  }

  static Pod pod(String ns, String name, String node, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  static GenericKubernetesResource capability(String node, Object status) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(NodeCapabilityStatus.API_VERSION);
    r.setKind(NodeCapabilityStatus.KIND);
    r.setMetadata(new ObjectMetaBuilder().withName(node).build());
    r.setAdditionalProperty("status", status);
    return r;
  }

  static Verdict verdict(NodeIndex index, String node, CapabilityKey key) {
    return index.capabilities(node).map(c -> c.verdict(key)).orElseThrow();
  }

  @Test
  void onlyReadyPodsOfTheCniDaemonSetMakeTheirNodesReady() {
    Map<String, String> cni = Map.of("k8s-app", "linkerd-cni");
    client.resource(pod("linkerd-cni", "cni-a", "n1", cni)).create();
    // not the DaemonSet's: another label in its namespace, its label in another namespace
    client.resource(pod("linkerd-cni", "other", "n2", Map.of("app", "other"))).create();
    client.resource(pod("default", "lookalike", "n3", cni)).create();

    ClusterSnapshot.Snapshot s =
        ClusterSnapshot.read(client, ConfigLoader.defaults().engine().capabilities());

    NodeIndex index = s.view().nodes(Instant.now());
    assertThat(verdict(index, "n1", CapabilityKey.CNI)).isEqualTo(Verdict.READY);
    assertThat(verdict(index, "n2", CapabilityKey.CNI)).isEqualTo(Verdict.UNKNOWN);
    assertThat(verdict(index, "n3", CapabilityKey.CNI)).isEqualTo(Verdict.UNKNOWN);
    assertThat(s.notes()).isEmpty();
  }

  @Test
  void aMalformedNodeCapabilityIsLeftOutWithANoteAndTheOthersCount() {
    Instant now = Instant.now();
    client
        .genericKubernetesResources(NodeCapabilityStatus.API_VERSION, NodeCapabilityStatus.KIND)
        .resource(
            capability(
                "n1",
                new NodeCapabilityStatus(
                        now,
                        Map.of(CapabilityKey.IPTABLES_NFT, Verdict.UNAVAILABLE),
                        Map.of(),
                        Map.of())
                    .toMap()))
        .create();
    client
        .genericKubernetesResources(NodeCapabilityStatus.API_VERSION, NodeCapabilityStatus.KIND)
        .resource(capability("n4", Map.of("observedAt", "yesterday")))
        .create();

    ClusterSnapshot.Snapshot s =
        ClusterSnapshot.read(client, ConfigLoader.defaults().engine().capabilities());

    assertThat(verdict(s.view().nodes(now), "n1", CapabilityKey.IPTABLES_NFT))
        .isEqualTo(Verdict.UNAVAILABLE);
    assertThat(s.notes()).singleElement().asString().startsWith("NodeCapability 'n4': ");
    assertThat(s.view().namespace("default")).isEmpty();
  }
}
