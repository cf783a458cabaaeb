package io.meshinjector.webhook.lists;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.webhook.cli.snapshot.ClusterReadException;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Lists decoded an object at a time, against fabric8's mock server and raw bodies. */
@EnableKubernetesMockClient(crud = true)
class StreamedListTest {
  KubernetesMockServer server;
  KubernetesClient client;

  static final String NODE =
      """
      {"metadata":{"name":"%s","labels":{"pool":"rhel"},
        "managedFields":[{"manager":"kubelet","fieldsV1":{"f:status":{}}}]},
       "status":{"nodeInfo":{"osImage":"Red Hat Enterprise Linux 8.10 (Ootpa)"},
        "images":[{"names":["registry/app@sha256:abc"],"sizeBytes":1}]}}
      """;

  @Test
  void decodesEachItemWithoutTheBulkAndTheListsMetadataWhereverItComes() throws IOException {
    String body =
        "{\"kind\":\"NodeList\",\"items\":["
            + NODE.formatted("a")
            + ","
            + NODE.formatted("b")
            + "],\"extra\":{\"nested\":[1,{\"x\":2}]},"
            + "\"metadata\":{\"resourceVersion\":\"42\"}}";
    List<Node> nodes = new ArrayList<>();

    ListMeta meta =
        StreamedList.decode(
            SkippingDecoder.mapper(),
            new java.io.ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)),
            StreamedList.ItemReader.bound(Node.class),
            nodes::add);

    assertThat(meta.getResourceVersion()).isEqualTo("42");
    assertThat(nodes).extracting(n -> n.getMetadata().getName()).containsExactly("a", "b");
    assertThat(nodes.get(0).getStatus().getNodeInfo().getOsImage()).startsWith("Red Hat");
    assertThat(nodes.get(0).getStatus().getImages()).isEmpty();
    assertThat(nodes.get(0).getMetadata().getManagedFields()).isEmpty();
  }

  @Test
  void handsOnAnItemBeforeTheRestOfTheBodyHasArrived() throws Exception {
    PipedInputStream in = new PipedInputStream(64 * 1024);
    PipedOutputStream out = new PipedOutputStream(in);
    CountDownLatch first = new CountDownLatch(1);
    AtomicBoolean firstBeforeTheRest = new AtomicBoolean();
    Thread writer =
        new Thread(
            () -> {
              try (out) {
                out.write(
                    ("{\"metadata\":{},\"items\":[" + NODE.formatted("a"))
                        .getBytes(StandardCharsets.UTF_8));
                out.flush();
                // the rest is written only once the first item was decoded, or after 5 s
                firstBeforeTheRest.set(first.await(5, TimeUnit.SECONDS));
                out.write(("," + NODE.formatted("b") + "]}").getBytes(StandardCharsets.UTF_8));
              } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    writer.start();
    List<String> names = new ArrayList<>();

    StreamedList.decode(
        SkippingDecoder.mapper(),
        in,
        StreamedList.ItemReader.bound(Node.class),
        node -> {
          names.add(node.getMetadata().getName());
          first.countDown();
        });
    writer.join(10_000);

    assertThat(firstBeforeTheRest).isTrue();
    assertThat(names).containsExactly("a", "b");
  }

  @Test
  void readsTheWholeListFromTheWatchCacheUnlessAskedOtherwise() {
    assertThat(StreamedList.url(client, "api/v1/nodes", Map.of()))
        .endsWith("/api/v1/nodes?resourceVersion=0");
    assertThat(
            StreamedList.url(
                client, "api/v1/pods", Map.of("fieldSelector", "status.phase=Running")))
        .endsWith("/api/v1/pods?resourceVersion=0&fieldSelector=status.phase%3DRunning");
    assertThat(StreamedList.url(client, "api/v1/nodes", Map.of("resourceVersion", "")))
        .endsWith("/api/v1/nodes");
  }

  @Test
  void listsWhatTheServerHolds() {
    for (String name : new String[] {"n1", "n2", "n3"}) {
      client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
    List<String> names = new ArrayList<>();

    StreamedList.forEach(
        client, "api/v1/nodes", Map.of(), Node.class, n -> names.add(n.getMetadata().getName()));

    assertThat(names).containsExactlyInAnyOrder("n1", "n2", "n3");
  }

  @Test
  void aRefusedListNamesTheServersStatus() {
    server
        .expect()
        .get()
        .withPath("/api/v1/nodes?resourceVersion=0")
        .andReturn(
            403,
            Map.of(
                "apiVersion", "v1",
                "kind", "Status",
                "status", "Failure",
                "reason", "Forbidden",
                "code", 403,
                "message", "nodes is forbidden: User \"jane\" cannot list resource \"nodes\""))
        .once();

    assertThatThrownBy(
            () -> ClusterSnapshot.forEach("nodes", client, "api/v1/nodes", Node.class, n -> {}))
        .isInstanceOf(ClusterReadException.class)
        .hasMessage(
            "listing nodes failed: HTTP 403: nodes is forbidden: User \"jane\" cannot list"
                + " resource \"nodes\"");
  }

  @Test
  void aBodyThatIsNoStatusIsTheMessage() {
    server
        .expect()
        .get()
        .withPath("/api/v1/nodes?resourceVersion=0")
        // what a server that is no API server answers
        .andReturn(404, "404 page not found\n")
        .once();

    assertThatThrownBy(
            () -> ClusterSnapshot.forEach("nodes", client, "api/v1/nodes", Node.class, n -> {}))
        .isInstanceOf(ClusterReadException.class)
        .hasMessage("listing nodes failed: HTTP 404: 404 page not found");
  }

  @Test
  void aTruncatedBodyIsAFailureNotAShorterList() {
    server
        .expect()
        .get()
        .withPath("/api/v1/nodes?resourceVersion=0")
        .andReturn(200, "{\"metadata\":{},\"items\":[" + NODE.formatted("a") + ",{\"metad")
        .once();
    List<Node> nodes = new ArrayList<>();

    assertThatThrownBy(
            () -> ClusterSnapshot.forEach("nodes", client, "api/v1/nodes", Node.class, nodes::add))
        .isInstanceOf(ClusterReadException.class)
        .hasMessageStartingWith("listing nodes failed: ");
  }
}
