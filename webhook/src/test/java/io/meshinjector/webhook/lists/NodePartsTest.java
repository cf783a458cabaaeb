package io.meshinjector.webhook.lists;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.google.protobuf.CodedInputStream;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.meshinjector.webhook.cluster.CompactNodeStore;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every way a Node reaches the view makes the same trimmed Node, with the OS and pod CIDRs the
 * decision reads: the list's JSON ({@link TrimmedNodeReader}), its protobuf ({@link
 * ProtobufNodeReader}), a watched Node bound and trimmed ({@link Trimmed#node}), and each of these
 * again out of the informer's store ({@link CompactNodeStore}), put and read, or packed with a list
 * and unpacked.
 */
class NodePartsTest {

  /** What the decision reads of a node's OS and ranges, as the Node had them. */
  record Kept(String operatingSystem, String osLabel, String podCIDR, List<String> podCIDRs) {
    static Kept of(Node node) {
      return new Kept(
          node.getStatus().getNodeInfo().getOperatingSystem(),
          node.getMetadata().getLabels().get("kubernetes.io/os"),
          node.getSpec().getPodCIDR(),
          node.getSpec().getPodCIDRs());
    }
  }

  /** Nodes as the API server's JSON decodes: nodeInfo's strings always there, empty or not. */
  static List<Node> nodes() {
    return List.of(
        node("dual", "linux", "10.244.3.0/24", "10.244.3.0/24", "fd00:10:244:3::/64"),
        node("ipv6", "linux", "fd00:10:244:4::/64", "fd00:10:244:4::/64"),
        node("old-windows", "windows", "10.244.9.0/24"),
        node("no-cidrs", "linux", null),
        // a spelling the API server accepts and the store keeps as text
        node("upper-case", "linux", "FD00:10:244:5::/64", "FD00:10:244:5::/64"),
        node("no-os", "", null));
  }

  private static Node node(String name, String os, String podCIDR, String... podCIDRs) {
    NodeBuilder b =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withResourceVersion("77")
            .addToLabels("pool", "a")
            .endMetadata()
            .withNewSpec()
            .withPodCIDR(podCIDR)
            .withPodCIDRs(podCIDRs)
            .endSpec()
            .withNewStatus()
            .withNewNodeInfo()
            .withOsImage("Some Linux")
            .withKubeletVersion("v1.32.6")
            .withOperatingSystem(os)
            .endNodeInfo()
            .endStatus();
    if (!os.isEmpty()) {
      b.editMetadata().addToLabels("kubernetes.io/os", os).endMetadata();
    }
    return b.build();
  }

  @ParameterizedTest
  @MethodSource("nodes")
  void everyPathMakesTheSameNodeWithTheFieldsTheNodeHad(Node node) throws IOException {
    String json = SkippingDecoder.mapper().writeValueAsString(node);
    Node fromJson = json(json);
    Node fromProtobuf =
        ProtobufNodeReader.read(CodedInputStream.newInstance(ProtobufBytes.node(node).bytes()));
    Node watched = Trimmed.node(SkippingDecoder.mapper().readValue(json, Node.class));
    CompactNodeStore store = new CompactNodeStore();
    String key = store.getKey(fromJson);
    store.put(key, fromJson);
    Node stored = store.get(key);
    Node listed = store.unpack(store.pack(fromProtobuf));
    store.put(key, listed);

    assertThat(Kept.of(fromJson))
        .isEqualTo(
            new Kept(
                node.getStatus().getNodeInfo().getOperatingSystem(),
                node.getMetadata().getLabels().get("kubernetes.io/os"),
                node.getSpec().getPodCIDR(),
                node.getSpec().getPodCIDRs()));
    assertThat(fromProtobuf).isEqualTo(fromJson);
    assertThat(watched).isEqualTo(fromJson);
    assertThat(stored).isEqualTo(fromJson);
    assertThat(listed).isEqualTo(fromJson);
    assertThat(store.get(key)).isEqualTo(fromJson);
  }

  private static Node json(String json) throws IOException {
    try (JsonParser p = SkippingDecoder.mapper().getFactory().createParser(json)) {
      p.nextToken();
      return TrimmedNodeReader.read(p);
    }
  }
}
