package io.meshinjector.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshinjector.webhook.lists.NodeListReading;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's protobuf list, read as serve reads it, makes the Nodes its JSON makes, with what
 * the decision reads of each node's OS and pod ranges: otherwise {@code NodeListBenchmark} would
 * time a list that carries less than a cluster's (its own check runs only under JMH).
 */
class NodeListProtobufTest {

  @Test
  void theListsNodesCarryTheirOperatingSystemAndPodCidrsThroughBothReaders() throws IOException {
    List<Node> items = NodeListBenchmark.listed(6);
    NodeList list = new NodeListBuilder().withNewMetadata().endMetadata().build();
    list.setItems(items);
    byte[] json = new KubernetesSerialization().asJson(list).getBytes(StandardCharsets.UTF_8);
    List<Node> fromProtobuf = new ArrayList<>();
    List<Node> fromJson = new ArrayList<>();

    NodeListReading.protobuf(
        new ByteArrayInputStream(NodeListProtobuf.envelope("1", items)), fromProtobuf::add);
    NodeListReading.json(new ByteArrayInputStream(json), fromJson::add);

    assertThat(fromProtobuf).hasSize(6).isEqualTo(fromJson);
    assertThat(fromProtobuf)
        .extracting(
            n -> n.getStatus().getNodeInfo().getOperatingSystem(),
            n -> n.getMetadata().getLabels().get("kubernetes.io/os"))
        .containsOnly(org.assertj.core.groups.Tuple.tuple("linux", "linux"));
    for (int i = 0; i < 6; i++) {
      assertThat(fromProtobuf.get(i).getSpec().getPodCIDRs())
          .isEqualTo(NodeListBenchmark.podCidrs(i));
      assertThat(fromProtobuf.get(i).getSpec().getPodCIDR())
          .isEqualTo(NodeListBenchmark.podCidrs(i).get(0));
    }
    assertThat(fromProtobuf.get(1).getSpec().getPodCIDRs())
        .containsExactly("10.0.1.0/24", "fd00:10:244:1::/64");
  }
}
