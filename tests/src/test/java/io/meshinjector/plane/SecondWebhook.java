package io.meshinjector.plane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.meshinjector.certs.CertificateAuthority;
import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.KeyedCertificate;
import io.meshinjector.certs.Pem;
import io.meshinjector.certs.SubjectNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Another mutating webhook, on loopback HTTPS with a CA of its own: to every pod it is sent, it
 * adds an app container and an app init container, each first in its list, as a webhook that knows
 * nothing of the mesh might.
 */
public final class SecondWebhook implements AutoCloseable {
  public static final String CONTAINER = "added";
  public static final String INIT = "added-init";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpsServer server;
  private final String caBundle;
  private final AtomicInteger calls = new AtomicInteger();

  private SecondWebhook(HttpsServer server, String caBundle) {
    this.server = server;
    this.caBundle = caBundle;
  }

  public static SecondWebhook start() throws IOException, GeneralSecurityException {
    CertificateIssuer issuer = new CertificateIssuer(Clock.systemUTC());
    CertificateAuthority ca = issuer.newAuthority(Duration.ofDays(2), KeyType.EC_P256);
    KeyedCertificate serving =
        issuer.issueServing(
            ca, SubjectNames.of(List.of("127.0.0.1")), Duration.ofDays(1), KeyType.EC_P256);
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    char[] password = "second".toCharArray();
    store.setKeyEntry(
        "serving",
        serving.privateKey(),
        password,
        new Certificate[] {serving.certificate(), ca.certificate()});
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, password);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keys.getKeyManagers(), null, null);

    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    SecondWebhook webhook =
        new SecondWebhook(
            server,
            Base64.getEncoder()
                .encodeToString(
                    Pem.certificate(ca.certificate()).getBytes(StandardCharsets.UTF_8)));
    server.createContext(
        "/mutate",
        exchange -> {
          byte[] answer;
          try (InputStream in = exchange.getRequestBody()) {
            answer = webhook.answer(JSON.readTree(in));
          }
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, answer.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
          }
        });
    server.start();
    return webhook;
  }

  private byte[] answer(JsonNode review) throws IOException {
    calls.incrementAndGet();
    JsonNode spec = review.at("/request/object/spec");
    ArrayNode patch = JSON.createArrayNode();
    ObjectNode init =
        JSON.createObjectNode().put("name", INIT).put("image", "registry.example/x:1");
    ObjectNode container =
        JSON.createObjectNode().put("name", CONTAINER).put("image", "registry.example/x:1");
    if (spec.path("initContainers").isArray()) {
      patch.addObject().put("op", "add").put("path", "/spec/initContainers/0").set("value", init);
    } else {
      patch
          .addObject()
          .put("op", "add")
          .put("path", "/spec/initContainers")
          .set("value", JSON.createArrayNode().add(init));
    }
    patch.addObject().put("op", "add").put("path", "/spec/containers/0").set("value", container);
    ObjectNode response = JSON.createObjectNode();
    response.put("uid", review.at("/request/uid").asText());
    response.put("allowed", true);
    response.put("patchType", "JSONPatch");
    response.put("patch", Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(patch)));
    ObjectNode out = JSON.createObjectNode();
    out.put("apiVersion", "admission.k8s.io/v1");
    out.put("kind", "AdmissionReview");
    out.set("response", response);
    return JSON.writeValueAsBytes(out);
  }

  public String url() {
    return "https://127.0.0.1:" + server.getAddress().getPort() + "/mutate";
  }

  /** The CA that signed the serving certificate, base64 of PEM, for a caBundle. */
  public String caBundle() {
    return caBundle;
  }

  public int calls() {
    return calls.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
