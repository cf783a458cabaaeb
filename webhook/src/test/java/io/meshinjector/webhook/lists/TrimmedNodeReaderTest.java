package io.meshinjector.webhook.lists;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reader must make exactly the Node that binding the JSON with the clients' decoder and
 * trimming it makes: the watch path does the latter, and a node must not look different to the view
 * because it was listed rather than watched.
 */
class TrimmedNodeReaderTest {

  /** Node JSON as the API server writes it, and the odd shapes a hand-made object may take. */
  static List<String> nodes() throws IOException {
    List<String> json = new ArrayList<>();
    json.add(SkippingDecoder.mapper().writeValueAsString(eksShaped()));
    json.add(
        """
        {"status":{"nodeInfo":{"kubeletVersion":"v1.31.4","osImage":"Red Hat Enterprise Linux 8.10 (Ootpa)"}},
         "spec":{"unschedulable":true,"taints":[{"key":"a","effect":"NoExecute","timeAdded":"2026-11-27T20:00:00Z"},
                 {"key":"b","value":"c","effect":"NoSchedule","extra":{"x":[1,2]}}]},
         "kind":"Node","apiVersion":"v1",
         "metadata":{"resourceVersion":"77","name":"n2","labels":{"zone":"a","n":5,"flag":true,"empty":null}}}
        """);
    json.add("{\"metadata\":{\"name\":\"no-labels\"}}");
    json.add(
        "{\"metadata\":{\"name\":\"null-labels\",\"labels\":null},\"spec\":null,\"status\":null}");
    json.add("{\"metadata\":{\"name\":\"empty-spec\",\"labels\":{}},\"spec\":{},\"status\":{}}");
    json.add(
        "{\"metadata\":{\"name\":\"null-taints\"},\"spec\":{\"taints\":null,\"unschedulable\":null},"
            + "\"status\":{\"nodeInfo\":null}}");
    json.add(
        "{\"metadata\":{\"name\":\"empty-info\"},\"spec\":{\"taints\":[]},\"status\":{\"nodeInfo\":{}}}");
    // an older cluster's Windows node: podCIDR alone
    json.add(
        """
        {"metadata":{"name":"win","labels":{"kubernetes.io/os":"windows"}},
         "spec":{"podCIDR":"10.244.9.0/24"},"status":{"nodeInfo":{"operatingSystem":"windows"}}}
        """);
    json.add(
        """
        {"metadata":{"name":"null-cidrs"},"spec":{"podCIDR":null,"podCIDRs":null},
         "status":{"nodeInfo":{"operatingSystem":null}}}
        """);
    json.add(
        """
        {"metadata":{"name":"odd-cidrs"},"spec":{"podCIDRs":["10.244.1.0/24",null,5],"podCIDR":""},
         "status":{"nodeInfo":{"operatingSystem":""}}}
        """);
    json.add("{\"metadata\":{\"name\":\"no-cidrs\"},\"spec\":{\"podCIDRs\":[]}}");
    return json;
  }

  @ParameterizedTest
  @MethodSource("nodes")
  void makesTheNodeThatBindingAndTrimmingMakes(String json) throws IOException {
    Node bound = Trimmed.node(SkippingDecoder.mapper().readValue(json, Node.class));

    assertThat(read(json)).isEqualTo(bound);
  }

  @org.junit.jupiter.api.Test
  void readsAListItemByItemAsBindingDoes() throws IOException {
    List<String> items = nodes();
    String body = "{\"kind\":\"NodeList\",\"items\":[" + String.join(",", items) + "]}";
    List<Node> read = new ArrayList<>();
    List<Node> bound = new ArrayList<>();

    StreamedList.decode(
        SkippingDecoder.mapper(), stream(body), StreamedList.ItemReader.trimmedNodes(), read::add);
    StreamedList.decode(
        SkippingDecoder.mapper(),
        stream(body),
        StreamedList.ItemReader.bound(Node.class),
        n -> bound.add(Trimmed.node(n)));

    assertThat(read).hasSize(items.size()).isEqualTo(bound);
  }

  /**
   * The OS and pod ranges the decision reads are kept, and a node that has none has none: the
   * comparison with binding above would also pass if the reader and {@link Trimmed#node} both
   * dropped them.
   */
  @org.junit.jupiter.api.Test
  void keepsTheOperatingSystemAndThePodCidrsAndNoneWhereThereAreNone() throws IOException {
    Node eks = read(SkippingDecoder.mapper().writeValueAsString(eksShaped()));
    // a spec and a nodeInfo, without the fields
    Node none = read(nodes().get(6));

    assertThat(eks.getStatus().getNodeInfo().getOperatingSystem()).isEqualTo("linux");
    assertThat(eks.getSpec().getPodCIDR()).isEqualTo("10.244.0.0/24");
    assertThat(eks.getSpec().getPodCIDRs()).containsExactly("10.244.0.0/24", "fd00:10:244::/64");
    assertThat(eks.getMetadata().getLabels()).containsEntry("kubernetes.io/os", "linux");
    assertThat(none.getMetadata().getName()).isEqualTo("empty-info");
    assertThat(none.getSpec().getPodCIDR()).isNull();
    assertThat(none.getSpec().getPodCIDRs()).isEmpty();
    assertThat(none.getStatus().getNodeInfo().getOperatingSystem()).isNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"metadata\":{\"name\":\"x\",\"labels\":[\"a\"]}}|metadata.labels is an array",
        "{\"metadata\":{\"name\":\"x\",\"labels\":{\"zone\":{\"a\":1}}}}"
            + "|metadata.labels.zone is an object, not a string",
        "{\"metadata\":{\"name\":[1]}}|metadata.name is an array, not a string",
        "{\"spec\":{\"unschedulable\":\"yes\"}}|spec.unschedulable is a string, not a boolean",
        "{\"spec\":{\"taints\":{\"key\":\"a\"}}}|spec.taints is an object",
        "{\"spec\":{\"taints\":[\"a\"]}}|spec.taints[] is a string",
        "{\"status\":{\"nodeInfo\":{\"osImage\":{}}}}|status.nodeInfo.osImage is an object",
        "{\"status\":{\"nodeInfo\":{\"operatingSystem\":[]}}}"
            + "|status.nodeInfo.operatingSystem is an array, not a string",
        "{\"spec\":{\"podCIDR\":{}}}|spec.podCIDR is an object, not a string",
        "{\"spec\":{\"podCIDRs\":\"10.0.0.0/24\"}}|spec.podCIDRs is a string, not an array",
        "{\"spec\":{\"podCIDRs\":[[\"a\"]]}}|spec.podCIDRs[] is an array, not a string",
      })
  void aFieldOfTheWrongShapeIsAnErrorNamingIt(String row) {
    String[] parts = row.split("\\|");

    assertThatThrownBy(() -> read(parts[0]))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(parts[1]);
  }

  private static Node read(String json) throws IOException {
    try (JsonParser p = SkippingDecoder.mapper().getFactory().createParser(json)) {
      p.nextToken();
      Node node = TrimmedNodeReader.read(p);
      assertThat(p.currentToken())
          .as("left at the node's end")
          .isEqualTo(com.fasterxml.jackson.core.JsonToken.END_OBJECT);
      assertThat(p.nextToken()).as("nothing read past it").isNull();
      return node;
    }
  }

  private static ByteArrayInputStream stream(String body) {
    return new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
  }

  /** A Node shaped as EKS writes them: the bulk the reader skips, and what it keeps. */
  private static Node eksShaped() {
    List<ContainerImage> images = new ArrayList<>();
    for (int k = 0; k < 5; k++) {
      images.add(
          new ContainerImage(
              List.of("repo/service-" + k + "@sha256:" + "ab".repeat(32), "repo/service-" + k),
              40_000_000L + k));
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName("ip-10-0-0-1.eu-west-1.compute.internal")
        .withResourceVersion("123456")
        .withUid("5b1c1a0e-0000-4000-8000-000000000001")
        .withCreationTimestamp("2026-11-27T20:00:00Z")
        .addToLabels("kubernetes.io/hostname", "ip-10-0-0-1.eu-west-1.compute.internal")
        .addToLabels("topology.kubernetes.io/zone", "eu-west-1a")
        .addToLabels("eks.amazonaws.com/nodegroup", "ng-rhel")
        .addToLabels("mesh-injector.io/iptables-nft", "supported")
        .addToLabels("kubernetes.io/os", "linux")
        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
        .withManagedFields(
            new ManagedFieldsEntryBuilder()
                .withManager("kubelet")
                .withOperation("Update")
                .withApiVersion("v1")
                .withFieldsType("FieldsV1")
                .withTime("2026-11-27T20:00:00Z")
                .build())
        .endMetadata()
        .withNewSpec()
        .withProviderID("aws:///eu-west-1a/i-0abc")
        .withPodCIDR("10.244.0.0/24")
        .withPodCIDRs("10.244.0.0/24", "fd00:10:244::/64")
        .addToTaints(
            new TaintBuilder()
                .withKey("node.kubernetes.io/not-ready")
                .withEffect("NoExecute")
                .withTimeAdded("2026-11-27T20:00:00Z")
                .build())
        .endSpec()
        .withNewStatus()
        .withCapacity(Map.of("cpu", new Quantity("8"), "memory", new Quantity("32408092Ki")))
        .addNewAddress("10.0.0.1", "InternalIP")
        .withConditions(
            new NodeCondition(
                "2026-11-27T20:00:00Z",
                "2026-11-27T20:00:00Z",
                "kubelet is posting ready status",
                "KubeletReady",
                "True",
                "Ready"))
        .withImages(images)
        .withNewNodeInfo()
        .withOsImage("Red Hat Enterprise Linux 8.10 (Ootpa)")
        .withKubeletVersion("v1.31.4-eks-0a1b2c3")
        .withKernelVersion("4.18.0-553.el8_10.x86_64")
        .withContainerRuntimeVersion("containerd://1.7.23")
        .withOperatingSystem("linux")
        .withArchitecture("amd64")
        .endNodeInfo()
        .endStatus()
        .build();
  }
}
