package io.meshinjector.webhook.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NamespaceList;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshinjector.webhook.client.ClusterClients;
import io.meshinjector.webhook.lists.Trimmed;
import io.meshinjector.webhook.tls.TlsProvider;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workload of a JDK 25 AOT-cache training run ({@code bin/train-aot-cache}, the image build):
 * with {@code -Dmesh-injector.aot.train=true}, {@code serve} posts a typical pod's AdmissionReview
 * to itself over HTTP/1.1 and HTTP/2, reads its probes and metrics, reads {@code /readyz} once more
 * through the Kubernetes client a start in a cluster uses, and exits, so the JVM writes the classes
 * a real admission uses, loaded and linked, into {@code -XX:AOTCacheOutput} (the launcher leaves
 * the method profiles out: see {@code bin/mesh-injector}).
 *
 * <p>The training posts with Vert.x on BoringSSL, the HTTP client and TLS the cluster client
 * already uses. The JDK loads every class of an AOT cache at start, so a client of the training's
 * own (the JDK's {@code HttpClient} and TLS, about 500 classes {@code serve} never loads otherwise)
 * would be resident in every replica.
 */
public final class AotTraining {
  public static final String PROPERTY = "mesh-injector.aot.train";
  private static final Logger LOG = LoggerFactory.getLogger(AotTraining.class);
  private static final String REVIEW = "aot-training-review.json";
  private static final String CLUSTER = "aot-training-cluster.json";
  private static final int ROUNDS = 300;
  private static final int TIMEOUT_SECONDS = 10;

  private AotTraining() {}

  public static boolean requested() {
    return Boolean.getBoolean(PROPERTY);
  }

  /**
   * Runs the workload against the running server; the certificate that {@code trustFile} holds (the
   * CA, or the serving certificate itself) is the only one trusted.
   *
   * @return the number of admissions answered 200
   */
  public static int run(ServerPorts ports, Path trustFile)
      throws IOException, InterruptedException, ExecutionException, TimeoutException {
    byte[] review;
    try (InputStream in = AotTraining.class.getResourceAsStream(REVIEW)) {
      review = Objects.requireNonNull(in, REVIEW).readAllBytes();
    }
    URI base = URI.create("https://localhost:" + ports.https());
    int ok = 0;
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
    try {
      for (HttpVersion version : List.of(HttpVersion.HTTP_1_1, HttpVersion.HTTP_2)) {
        HttpClientOptions options =
            new HttpClientOptions()
                .setProtocolVersion(version)
                .setSsl(true)
                .setUseAlpn(version == HttpVersion.HTTP_2)
                .setTrustOptions(new PemTrustOptions().addCertPath(trustFile.toString()))
                .setDefaultHost("localhost")
                .setDefaultPort(ports.https())
                .setConnectTimeout(5_000);
        if (TlsProvider.boringSsl()) {
          options.setSslEngineOptions(new OpenSSLEngineOptions());
        }
        HttpClient client = vertx.createHttpClient(options);
        ok += status(client, HttpMethod.GET, "/readyz", null) == 200 ? 0 : -1;
        ok += status(client, HttpMethod.GET, "/healthz", null) == 200 ? 0 : -1;
        for (int i = 0; i < ROUNDS; i++) {
          ok += status(client, HttpMethod.POST, "/mutate", review) == 200 ? 1 : 0;
        }
        status(client, HttpMethod.POST, "/mutate", "{\"kind\":".getBytes());
        await(client.close());
      }
      HttpClient plain =
          vertx.createHttpClient(
              new HttpClientOptions()
                  .setDefaultHost("localhost")
                  .setDefaultPort(ports.management()));
      status(plain, HttpMethod.GET, "/metrics", null);
    } finally {
      await(vertx.close());
    }
    LOG.info("AOT training: {} of {} admissions answered 200", ok, 2 * ROUNDS);
    try {
      LOG.info("AOT training: the cluster client read /readyz: {}", clusterClient(base, trustFile));
    } catch (Exception e) {
      // a cache without these classes only starts slower in a cluster
      LOG.warn("AOT training: the cluster client's part failed: {}", e.toString());
    }
    return ok;
  }

  /**
   * What a start in a cluster loads and the training's cluster file never does: the Kubernetes
   * client on Vert.x with its TLS, and the decoding of Node and Namespace lists and of a watch
   * event, trimmed as the informers trim them. Without them in the cache, serve, explain and check
   * loaded them cold before the first list.
   *
   * @return the HTTP status of the server's {@code /readyz} as the client read it
   */
  public static int clusterClient(URI base, Path trustFile) throws Exception {
    JsonNode fixture;
    try (InputStream in = AotTraining.class.getResourceAsStream(CLUSTER)) {
      fixture = new ObjectMapper().readTree(Objects.requireNonNull(in, CLUSTER));
    }
    Config config =
        new ConfigBuilder()
            .withMasterUrl(base.toString())
            .withCaCertFile(trustFile.toString())
            .withRequestTimeout(10_000)
            .build();
    try (KubernetesClient client = ClusterClients.builder().withConfig(config).build()) {
      KubernetesSerialization json = client.getKubernetesSerialization();
      json.unmarshal(fixture.get("nodes").toString(), NodeList.class)
          .getItems()
          .forEach(n -> Trimmed.withoutPublishedLabels(Trimmed.node(n)));
      json.unmarshal(fixture.get("namespaces").toString(), NamespaceList.class)
          .getItems()
          .forEach(Trimmed::namespace);
      json.unmarshal(fixture.get("event").toString(), WatchEvent.class);
      io.fabric8.kubernetes.client.http.HttpClient http = client.getHttpClient();
      return http.sendAsync(
              http.newHttpRequestBuilder().uri(base.resolve("/readyz")).build(), String.class)
          .get(10, TimeUnit.SECONDS)
          .code();
    }
  }

  /** The status of one request, its body read and dropped. */
  private static int status(HttpClient client, HttpMethod method, String path, byte[] body)
      throws InterruptedException, ExecutionException, TimeoutException {
    return await(
        client
            .request(method, path)
            .compose(
                request -> {
                  request.idleTimeout(TIMEOUT_SECONDS * 1000L);
                  if (body == null) {
                    return request.send();
                  }
                  request.putHeader("Content-Type", "application/json");
                  return request.send(Buffer.buffer(body));
                })
            .compose(response -> response.body().map(ignored -> response.statusCode())));
  }

  private static <T> T await(io.vertx.core.Future<T> future)
      throws InterruptedException, ExecutionException, TimeoutException {
    return future.toCompletionStage().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }
}
