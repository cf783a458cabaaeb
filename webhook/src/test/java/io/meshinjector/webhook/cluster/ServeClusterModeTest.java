package io.meshinjector.webhook.cluster;

import static io.meshinjector.webhook.support.ClusterFixtures.RHEL;
import static io.meshinjector.webhook.support.ClusterFixtures.await;
import static io.meshinjector.webhook.support.ClusterFixtures.enabledNamespace;
import static io.meshinjector.webhook.support.ClusterFixtures.node;
import static io.meshinjector.webhook.support.ClusterFixtures.podOn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.server.ServerPorts;
import io.meshinjector.webhook.support.ClusterFixtures;
import io.meshinjector.webhook.support.NoDrain;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.ServedContexts;
import io.meshinjector.webhook.support.Tls;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code serve} without {@code --cluster} files, finding the (mock) API server through a kubeconfig
 * as kubectl does: readiness waits for the informers' first sync, the API server's version rules
 * out native sidecars, and when the API server goes away admissions go on from the cache, with the
 * age gauge and a warning, until the informers catch up again by themselves.
 */
class ServeClusterModeTest {
  private static final Duration LIMIT = Duration.ofSeconds(20);
  private static final Pattern AGE =
      Pattern.compile("(?m)^mesh_injector_cluster_view_age_seconds\\S* (\\S+)$");

  @TempDir Path tmp;

  private KubernetesMockServer server;
  private ConfigurableApplicationContext context;
  private HttpClient https;
  private URI base;
  private URI metrics;

  @AfterEach
  void stop() {
    System.clearProperty("kubeconfig");
    if (context != null) {
      context.close();
    }
    if (server != null) {
      server.destroy();
    }
  }

  /** A CRUD mock API server that also honours expectations, on a given port. */
  private static KubernetesMockServer mockServer(int port, String minor) throws Exception {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    KubernetesMockServer s =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(
                responses, List.of(ClusterFixtures.nodeCapabilityCrd(false))),
            false,
            new VersionInfo.Builder().withMajor("1").withMinor(minor).build());
    s.init(InetAddress.getByName("localhost"), port);
    return s;
  }

  private static void seed(KubernetesClient client) {
    client.namespaces().resource(enabledNamespace("shop")).create();
    client.nodes().resource(node("rhel-1", RHEL, "v1.31.4")).create();
  }

  private void serve(int apiPort) throws Exception {
    Path kubeconfig = tmp.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: mock, cluster: {server: "http://localhost:%d"}}]
        users: [{name: mock, user: {token: test}}]
        contexts: [{name: mock, context: {cluster: mock, user: mock}}]
        current-context: mock
        """
            .formatted(apiPort));
    System.setProperty("kubeconfig", kubeconfig.toString());
    Path config = tmp.resolve("config.yaml");
    NoDrain.config(config, "webhook:\n  cluster:\n    staleAfter: 1s\n");
    Path tls = tmp.resolve("tls");
    var cli = MeshInjector.commandLine();
    assertThat(
            cli.execute(
                "serve", "--port=0", "--metrics-port=0", "--tls-dir=" + tls, "--config=" + config))
        .isZero();
    context = ServedContexts.last();
    ServerPorts ports = context.getBean(ServerPorts.class);
    base = URI.create("https://localhost:" + ports.https());
    metrics = URI.create("http://localhost:" + ports.management() + "/metrics");
    https = Tls.client(tls.resolve("ca.crt"));
  }

  @Test
  void decidesFromTheClusterReadyOnlyAfterSyncAndGoesOnFromTheCacheWhenTheApiServerIsGone()
      throws Exception {
    // the API server is not up yet: the informers cannot sync, and serve starts anyway
    int apiPort = freePort();
    serve(apiPort);
    assertThat(readyz()).as("before the first sync").isEqualTo(503);
    assertThat(metrics()).contains("mesh_injector_cluster_view_synced 0.0");
    assertThat(metrics()).contains("mesh_injector_cluster_view_age_seconds NaN");
    assertThat(metrics()).contains("mesh_injector_cluster_view_node_shapes 0.0");

    server = mockServer(apiPort, "31");
    seed(server.createClient());
    // the informers retry with a growing back-off
    await("ready after the first sync", Duration.ofSeconds(60), () -> readyz() == 200);
    assertThat(metrics()).contains("mesh_injector_cluster_view_synced 1.0");
    // The CRUD mock's watch sends only what happens after it opens, where an API server sends
    // everything after the list's resourceVersion: a node seeded between an informer's list and
    // its watch would never arrive, and the decision would be for a view without nodes (init/nft
    // container, one run in many). Touching the node until a decision sees it stands in for the
    // API server's replay.
    int[] touches = {0};
    await(
        "the seeded node in the view",
        LIMIT,
        () -> {
          if (!viewHasNodes()) {
            server
                .createClient()
                .nodes()
                .withName("rhel-1")
                .edit(
                    n -> {
                      n.getMetadata().getAnnotations().put("touched", "" + touches[0]++);
                      return n;
                    });
            return false;
          }
          return true;
        });
    await("the watches are up", LIMIT, () -> age() < 1.0);
    // the node as seeded, and as it is once the publisher has added its capability labels: the
    // pool holds a shape no node has any more until it is next pruned (touches change annotations,
    // which are not kept, so no shape)
    await(
        "the seeded and the labelled node's shapes",
        LIMIT,
        () -> metrics().contains("mesh_injector_cluster_view_node_shapes 2.0"));

    JsonNode answer = admit();
    assertThat(answer.at("/allowed").asBoolean()).isTrue();
    assertThat(answer.at("/auditAnnotations/decision").asText())
        .isEqualTo("init/nft native-sidecar await");
    assertThat(answer.at("/patchType").asText()).isEqualTo("JSONPatch");
    assertThat(answer.at("/warnings").toString()).doesNotContain("cluster view");

    server.destroy();
    await("the view ages past staleAfter", LIMIT, () -> age() > 1.0);
    JsonNode stale = admit();
    assertThat(stale.at("/allowed").asBoolean()).isTrue();
    assertThat(stale.at("/auditAnnotations/decision").asText())
        .as("decided from the last known state")
        .isEqualTo("init/nft native-sidecar await");
    assertThat(stale.at("/warnings").toString()).contains("cluster view").contains("old");
    assertThat(readyz()).as("a stale view still serves").isEqualTo(200);

    // the API server comes back (empty: a restored etcd is not our concern) and the informers
    // find it again by themselves
    server = mockServer(apiPort, "31");
    seed(server.createClient());
    await("the view is current again", Duration.ofSeconds(60), () -> age() < 1.0);
    assertThat(admit().at("/warnings").toString()).doesNotContain("cluster view");
  }

  /** Whether a decision finds nodes in the view (it warns when it has none). */
  private boolean viewHasNodes() {
    try {
      return !admit().at("/warnings").toString().contains("has no nodes");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The answer to a pod on rhel-1: the AdmissionReview's {@code response}. */
  private JsonNode admit() throws Exception {
    ObjectNode review =
        Reviews.podCreate(
            "admission.k8s.io/v1",
            "shop",
            Reviews.JSON.readTree(Serialization.asJson(podOn("shop", "rhel-1"))));
    return Reviews.post(https, base.resolve("/mutate"), review);
  }

  private int readyz() {
    try {
      return https
          .send(
              HttpRequest.newBuilder(base.resolve("/readyz")).build(),
              HttpResponse.BodyHandlers.ofString())
          .statusCode();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private String metrics() {
    try {
      return HttpClient.newHttpClient()
          .send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private double age() {
    Matcher m = AGE.matcher(metrics());
    assertThat(m.find()).as("the age gauge is exported").isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
