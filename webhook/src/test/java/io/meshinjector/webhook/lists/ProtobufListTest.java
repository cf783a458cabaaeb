package io.meshinjector.webhook.lists;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lists in the API server's protobuf: each Node must come out exactly as {@link TrimmedNodeReader}
 * makes it from the JSON of the same object (which {@code TrimmedNodeReaderTest} holds to binding
 * and trimming), so a node looks the same to the view whichever way it was listed. The bytes are
 * written by {@link ProtobufBytes} from the wire format's rules, as Go writes them.
 */
class ProtobufListTest {

  /** Nodes as the API server's JSON decodes: what protobuf always sends, JSON leaves out empty. */
  static List<Node> nodes() {
    return List.of(
        new NodeBuilder()
            .withNewMetadata()
            .withName("ip-10-0-0-1.eu-west-1.compute.internal")
            .withResourceVersion("230")
            .withLabels(
                Map.of("pool", "rhel", "topology.kubernetes.io/zone", "eu-west-1a", "empty", ""))
            .endMetadata()
            .withNewSpec()
            .withUnschedulable(true)
            .withTaints(
                new TaintBuilder()
                    .withKey("node.kubernetes.io/unreachable")
                    .withEffect("NoExecute")
                    .withTimeAdded("2026-11-27T20:00:00Z")
                    .build(),
                new TaintBuilder()
                    .withKey("dedicated")
                    .withValue("batch")
                    .withEffect("NoSchedule")
                    .build())
            // dual-stack, as the API server writes it: podCIDR repeats the first of podCIDRs
            .withPodCIDR("10.244.3.0/24")
            .withPodCIDRs("10.244.3.0/24", "fd00:10:244:3::/64")
            .endSpec()
            .withNewStatus()
            .withNewNodeInfo()
            .withOsImage("Red Hat Enterprise Linux 8.10 (Ootpa)")
            .withKubeletVersion("v1.31.4-eks-0a1b2c3")
            .withOperatingSystem("linux")
            .endNodeInfo()
            .endStatus()
            .build(),
        // no labels, no taints, schedulable, no pod CIDRs: JSON has none of them, protobuf says
        // false, "" and nothing; an unset operatingSystem is "" in both (JSON always writes it)
        new NodeBuilder()
            .withNewMetadata()
            .withName("bare")
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .withNewStatus()
            .withNewNodeInfo()
            .withOsImage("")
            .withKubeletVersion("")
            .withOperatingSystem("")
            .endNodeInfo()
            .endStatus()
            .build(),
        // a Windows node of an older cluster: podCIDR alone
        new NodeBuilder()
            .withNewMetadata()
            .withName("win-1")
            .withResourceVersion("231")
            .addToLabels("kubernetes.io/os", "windows")
            .endMetadata()
            .withNewSpec()
            .withPodCIDR("10.244.9.0/24")
            .endSpec()
            .withNewStatus()
            .withNewNodeInfo()
            .withOsImage("Windows Server 2022 Datacenter")
            .withKubeletVersion("v1.31.4")
            .withOperatingSystem("windows")
            .endNodeInfo()
            .endStatus()
            .build());
  }

  @ParameterizedTest
  @MethodSource("nodes")
  void makesTheNodeTheJsonReaderMakesOfTheSameObject(Node node) throws IOException {
    Node fromJson = json(node);

    assertThat(read(ProtobufBytes.node(node).bytes())).isEqualTo(fromJson);
  }

  /**
   * What the decision reads of a node's OS and pod ranges comes through protobuf as it is, and a
   * node without pod CIDRs has none: the comparison with the JSON reader above would also pass if
   * both dropped them.
   */
  @Test
  void keepsTheOperatingSystemAndThePodCidrsAndNoneWhereThereAreNone() throws IOException {
    Node dualStack = read(ProtobufBytes.node(nodes().get(0)).bytes());
    Node bare = read(ProtobufBytes.node(nodes().get(1)).bytes());
    Node windows = read(ProtobufBytes.node(nodes().get(2)).bytes());

    assertThat(dualStack.getStatus().getNodeInfo().getOperatingSystem()).isEqualTo("linux");
    assertThat(dualStack.getSpec().getPodCIDR()).isEqualTo("10.244.3.0/24");
    assertThat(dualStack.getSpec().getPodCIDRs())
        .containsExactly("10.244.3.0/24", "fd00:10:244:3::/64");
    assertThat(bare.getStatus().getNodeInfo().getOperatingSystem()).isEmpty();
    assertThat(bare.getSpec().getPodCIDR()).isNull();
    assertThat(bare.getSpec().getPodCIDRs()).isEmpty();
    assertThat(windows.getStatus().getNodeInfo().getOperatingSystem()).isEqualTo("windows");
    assertThat(windows.getMetadata().getLabels()).containsEntry("kubernetes.io/os", "windows");
    assertThat(windows.getSpec().getPodCIDR()).isEqualTo("10.244.9.0/24");
    assertThat(windows.getSpec().getPodCIDRs()).isEmpty();
  }

  @Test
  void aZeroTimeIsJsonsNullAndFieldsItDoesNotKnowAreSkippedWhateverTheirWireType()
      throws IOException {
    // a newer API server's fields, of each wire type, in each message read; a zero timeAdded
    ProtobufBytes unknown =
        new ProtobufBytes().varint(90, 7).fixed32(91, 1).fixed64(92, 2).string(93, "new");
    byte[] node =
        new ProtobufBytes()
            .message(
                1,
                new ProtobufBytes()
                    .string(1, "n")
                    .message(
                        11, new ProtobufBytes().string(1, "pool").string(2, "rhel").varint(3, 1))
                    .bytes(94, unknown.bytes()))
            .message(
                2,
                new ProtobufBytes()
                    .varint(4, 0)
                    .message(
                        5,
                        new ProtobufBytes()
                            .string(1, "k")
                            .string(2, "")
                            .string(3, "NoSchedule")
                            .message(4, new ProtobufBytes())
                            .fixed64(92, 3))
                    .fixed32(91, 4))
            .message(
                3,
                new ProtobufBytes()
                    .message(7, new ProtobufBytes().string(5, "os").string(7, "v1").varint(90, 1))
                    .varint(90, 5))
            .varint(90, 6)
            .bytes();

    Node read = read(node);

    assertThat(read)
        .isEqualTo(
            json(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName("n")
                    .withLabels(Map.of("pool", "rhel"))
                    .endMetadata()
                    .withNewSpec()
                    .withTaints(new TaintBuilder().withKey("k").withEffect("NoSchedule").build())
                    .endSpec()
                    .withNewStatus()
                    .withNewNodeInfo()
                    .withOsImage("os")
                    .withKubeletVersion("v1")
                    .withOperatingSystem("")
                    .endNodeInfo()
                    .endStatus()
                    .build()));
  }

  @Test
  void aFieldOfTheWrongWireTypeOrCutOffIsAnErrorNamingIt() {
    byte[] nameAsNumber = new ProtobufBytes().message(1, new ProtobufBytes().varint(1, 5)).bytes();
    byte[] cidrAsNumber = new ProtobufBytes().message(2, new ProtobufBytes().varint(7, 5)).bytes();
    // a group (a wire type Kubernetes never writes) started and never ended
    byte[] openGroup = new ProtobufBytes().message(1, new ProtobufBytes().key(9, 3)).bytes();
    byte[] whole = ProtobufBytes.node(nodes().get(0)).bytes();
    // ten bytes before the end: in status, the Node's last field
    byte[] cut = Arrays.copyOf(whole, whole.length - 10);

    assertThatThrownBy(() -> read(nameAsNumber))
        .hasMessage("metadata.name (field 1) has wire type 0, not 2");
    assertThatThrownBy(() -> read(cidrAsNumber))
        .hasMessage("spec.podCIDRs[] (field 7) has wire type 0, not 2");
    assertThatThrownBy(() -> read(openGroup))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessageContaining("end-group tag");
    assertThatThrownBy(() -> read(cut))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessageStartingWith("status has a length of ");
  }

  @Test
  void decodesAListsEnvelopeItsMetadataAndEachItemInOrder() throws IOException {
    byte[] body = ProtobufBytes.envelope("NodeList", ProtobufBytes.nodeList("42", nodes()));
    List<Node> read = new ArrayList<>();

    ListMeta meta =
        ProtobufList.decode(new ByteArrayInputStream(body), ProtobufNodeReader::read, read::add);

    assertThat(meta.getResourceVersion()).isEqualTo("42");
    assertThat(meta.getContinue()).isNull();
    assertThat(read)
        .containsExactly(json(nodes().get(0)), json(nodes().get(1)), json(nodes().get(2)));
  }

  @Test
  void handsOnAnItemBeforeTheRestOfTheBodyHasArrived() throws Exception {
    // two items, the second the last in the body
    List<Node> two = nodes().subList(0, 2);
    byte[] body = ProtobufBytes.envelope("NodeList", ProtobufBytes.nodeList("42", two));
    // four bytes into the second item's message: the first is whole, the second is not
    int firstEnds = body.length - ProtobufBytes.node(two.get(1)).bytes().length;
    PipedInputStream in = new PipedInputStream(body.length);
    PipedOutputStream out = new PipedOutputStream(in);
    CountDownLatch first = new CountDownLatch(1);
    AtomicBoolean firstBeforeTheRest = new AtomicBoolean();
    Thread writer =
        new Thread(
            () -> {
              try (out) {
                out.write(body, 0, firstEnds);
                out.flush();
                firstBeforeTheRest.set(first.await(5, TimeUnit.SECONDS));
                out.write(body, firstEnds, body.length - firstEnds);
              } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    writer.start();
    List<String> names = new ArrayList<>();

    ProtobufList.decode(
        in,
        ProtobufNodeReader::read,
        n -> {
          names.add(n.getMetadata().getName());
          first.countDown();
        });
    writer.join(10_000);

    assertThat(firstBeforeTheRest).isTrue();
    assertThat(names).containsExactly(nodes().get(0).getMetadata().getName(), "bare");
  }

  @Test
  void aBodyThatIsNotKubernetesProtobufOrIsCutOffIsAnError() {
    byte[] body = ProtobufBytes.envelope("NodeList", ProtobufBytes.nodeList("42", nodes()));
    byte[] cut = Arrays.copyOf(body, body.length - 30);
    byte[] huge =
        ProtobufBytes.envelope(
            "NodeList", new ProtobufBytes().key(2, 2).raw(1L << 40).string(1, "x"));

    assertThatThrownBy(() -> decode("{\"kind\":\"NodeList\"}".getBytes()))
        .hasMessageStartingWith("the answer does not start as Kubernetes' protobuf does");
    assertThatThrownBy(() -> decode(cut)).hasMessageStartingWith("the list is cut off");
    assertThatThrownBy(() -> decode(huge))
        .hasMessage("a list item of 1099511627776 bytes, more than the 67108864 read");
  }

  @Test
  void readsARefusalsStatusFromProtobufAndNothingFromJson() {
    byte[] status =
        ProtobufBytes.envelope(
            "Status",
            new ProtobufBytes()
                .message(1, new ProtobufBytes())
                .string(2, "Failure")
                .string(3, "nodes is forbidden")
                .string(4, "Forbidden")
                .varint(6, 403));

    Status read = ProtobufList.status(status);

    assertThat(read.getMessage()).isEqualTo("nodes is forbidden");
    assertThat(read.getReason()).isEqualTo("Forbidden");
    assertThat(read.getCode()).isEqualTo(403);
    assertThat(ProtobufList.status("{\"kind\":\"Status\"}".getBytes())).isNull();
  }

  /**
   * Over HTTP: the trimmed reader asks for protobuf first and reads it when it comes; a refusal in
   * protobuf names the server's message.
   */
  @Test
  void asksForProtobufReadsItAndNamesARefusal() throws Exception {
    byte[] list = ProtobufBytes.envelope("NodeList", ProtobufBytes.nodeList("7", nodes()));
    byte[] refusal =
        ProtobufBytes.envelope(
            "Status", new ProtobufBytes().string(3, "nodes is forbidden").varint(6, 403));
    AtomicReference<String> accept = new AtomicReference<>();
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.createContext(
        "/api/v1/",
        exchange -> {
          accept.set(exchange.getRequestHeaders().getFirst("Accept"));
          boolean refused = exchange.getRequestURI().getPath().endsWith("secret-nodes");
          byte[] body = refused ? refusal : list;
          exchange.getResponseHeaders().set("Content-Type", ProtobufList.CONTENT_TYPE);
          exchange.sendResponseHeaders(refused ? 403 : 200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    http.start();
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + http.getAddress().getPort())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      List<Node> read = new ArrayList<>();

      StreamedList.Listed listed =
          StreamedList.forEach(
              client, "api/v1/nodes", Map.of(), StreamedList.ItemReader.trimmedNodes(), read::add);

      assertThat(accept.get()).startsWith(ProtobufList.CONTENT_TYPE + ",");
      assertThat(listed.encoding()).isEqualTo("protobuf");
      assertThat(listed.items()).isEqualTo(3);
      assertThat(listed.bytes()).isEqualTo(list.length);
      assertThat(listed.metadata().getResourceVersion()).isEqualTo("7");
      assertThat(read)
          .containsExactly(json(nodes().get(0)), json(nodes().get(1)), json(nodes().get(2)));
      assertThatThrownBy(
              () ->
                  StreamedList.forEach(
                      client,
                      "api/v1/secret-nodes",
                      Map.of(),
                      StreamedList.ItemReader.trimmedNodes(),
                      n -> {}))
          .isInstanceOfSatisfying(
              KubernetesClientException.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(403);
                assertThat(e.getStatus().getMessage()).isEqualTo("nodes is forbidden");
              });
    } finally {
      http.stop(0);
    }
  }

  private static ListMeta decode(byte[] body) throws IOException {
    return ProtobufList.decode(new ByteArrayInputStream(body), ProtobufNodeReader::read, n -> {});
  }

  private static Node read(byte[] node) throws IOException {
    return ProtobufNodeReader.read(CodedInputStream.newInstance(node));
  }

  /** What the JSON reader makes of the API server's JSON of this node. */
  private static Node json(Node node) throws IOException {
    String json = SkippingDecoder.mapper().writeValueAsString(node);
    try (var parser = SkippingDecoder.mapper().getFactory().createParser(json)) {
      parser.nextToken();
      return TrimmedNodeReader.read(parser);
    }
  }
}
