package io.meshinjector.webhook.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterClientsTest {
  static Node eksNode(String name) {
    NodeBuilder b =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withResourceVersion("42")
            .addToLabels("kubernetes.io/os", "linux")
            .addToLabels("pool", "rhel")
            .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
            .withManagedFields(
                new ManagedFieldsEntryBuilder()
                    .withManager("kubelet")
                    .withOperation("Update")
                    .withNewFieldsV1()
                    .addToAdditionalProperties("f:status", java.util.Map.of())
                    .endFieldsV1()
                    .build())
            .endMetadata()
            .withNewSpec()
            .withProviderID("aws:///eu-west-1a/i-0abc")
            .addNewTaint()
            .withKey("dedicated")
            .withValue("batch")
            .withEffect("NoSchedule")
            .endTaint()
            .endSpec()
            .withNewStatus()
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("10.0.0.1")
            .endAddress()
            .withNewNodeInfo()
            .withOsImage("Red Hat Enterprise Linux 8.10 (Ootpa)")
            .withKubeletVersion("v1.32.6")
            .endNodeInfo()
            .addNewVolumesAttached()
            .withName("kubernetes.io/csi/ebs^vol-1")
            .withDevicePath("")
            .endVolumesAttached()
            .addToVolumesInUse("kubernetes.io/csi/ebs^vol-1")
            .endStatus();
    for (int i = 0; i < 50; i++) {
      b.editStatus()
          .addNewImage()
          .withNames("registry.example/app-" + i + "@sha256:" + "ab".repeat(32), "app-" + i + ":1")
          .withSizeBytes(1_000_000L + i)
          .endImage()
          .endStatus();
    }
    return b.build();
  }

  @Test
  void clientsBuiltHereDecodeNodesWithoutTheirImagesVolumesAndManagedFields() {
    String json = new KubernetesSerialization().asJson(eksNode("rhel-1"));
    assertThat(json).contains("\"images\"", "managedFields", "volumesInUse");

    Node node;
    try (KubernetesClient client = ClusterClients.builder().build()) {
      node = client.getKubernetesSerialization().unmarshal(json, Node.class);
    }

    assertThat(node.getStatus().getImages()).isNullOrEmpty();
    assertThat(node.getStatus().getVolumesAttached()).isNullOrEmpty();
    assertThat(node.getStatus().getVolumesInUse()).isNullOrEmpty();
    assertThat(node.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(node.getStatus().getAdditionalProperties()).isEmpty();
    assertThat(node.getMetadata().getAdditionalProperties()).isEmpty();
    // what the decision, the label publisher and `check` read is all there
    Node full = eksNode("rhel-1");
    assertThat(node.getMetadata().getLabels()).isEqualTo(full.getMetadata().getLabels());
    assertThat(node.getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(node.getSpec()).isEqualTo(full.getSpec());
    assertThat(node.getStatus().getNodeInfo()).isEqualTo(full.getStatus().getNodeInfo());
    assertThat(node.getStatus().getConditions()).isEqualTo(full.getStatus().getConditions());
    assertThat(node.getStatus().getAddresses()).isEqualTo(full.getStatus().getAddresses());
  }

  @Test
  void aListPageIsBoundAtAFractionOfItsSize() {
    List<Node> items = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      items.add(eksNode("node-" + i));
    }
    NodeList page = new NodeListBuilder().withItems(items).build();
    String json = new KubernetesSerialization().asJson(page);

    String kept;
    try (KubernetesClient client = ClusterClients.builder().build()) {
      KubernetesSerialization decoding = client.getKubernetesSerialization();
      kept = decoding.asJson(decoding.unmarshal(json, NodeList.class));
    }

    assertThat(kept.length()).isLessThan(json.length() / 4);
  }
}
