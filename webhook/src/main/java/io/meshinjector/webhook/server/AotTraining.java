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
import io.meshinjector.webhook.cluster.ClusterClients;
import io.meshinjector.webhook.cluster.Trimmed;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workload of a JDK 25 AOT-cache training run ({@code bin/train-aot-cache}, the image build):
 * with {@code -Dmesh-injector.aot.train=true}, {@code serve} posts a typical pod's AdmissionReview
 * to itself over HTTP/1.1 and HTTP/2, reads its probes and metrics, reads {@code /readyz} once more
 * through the Kubernetes client a start in a cluster uses, and exits, so the JVM writes the classes
 * a real admission uses, loaded and linked, into {@code -XX:AOTCacheOutput} (the launcher leaves
 * the method profiles out: see {@code bin/mesh-injector}).
 */
public final class AotTraining {
  public static final String PROPERTY = "mesh-injector.aot.train";
  private static final Logger LOG = LoggerFactory.getLogger(AotTraining.class);
  private static final String REVIEW = "aot-training-review.json";
  private static final String CLUSTER = "aot-training-cluster.json";
  private static final int ROUNDS = 300;

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
      throws IOException, InterruptedException, GeneralSecurityException {
    byte[] review;
    try (InputStream in = AotTraining.class.getResourceAsStream(REVIEW)) {
      review = Objects.requireNonNull(in, REVIEW).readAllBytes();
    }
    SSLContext tls = trusting(trustFile);
    URI base = URI.create("https://localhost:" + ports.https());
    int ok = 0;
    for (HttpClient.Version version : HttpClient.Version.values()) {
      HttpClient client =
          HttpClient.newBuilder()
              .version(version)
              .sslContext(tls)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      ok += status(client, get(base.resolve("/readyz"))) == 200 ? 0 : -1;
      ok += status(client, get(base.resolve("/healthz"))) == 200 ? 0 : -1;
      for (int i = 0; i < ROUNDS; i++) {
        HttpRequest post =
            HttpRequest.newBuilder(base.resolve("/mutate"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(review))
                .build();
        ok += status(client, post) == 200 ? 1 : 0;
      }
      HttpRequest bad =
          HttpRequest.newBuilder(base.resolve("/mutate"))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString("{\"kind\":"))
              .build();
      status(client, bad);
    }
    HttpClient plain = HttpClient.newHttpClient();
    status(plain, get(URI.create("http://localhost:" + ports.management() + "/metrics")));
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

  private static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build();
  }

  private static int status(HttpClient client, HttpRequest request)
      throws IOException, InterruptedException {
    return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static SSLContext trusting(Path pem) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    try (InputStream in = Files.newInputStream(pem)) {
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("trusted-" + i++, c);
      }
    }
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }
}
