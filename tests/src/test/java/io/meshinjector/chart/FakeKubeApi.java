package io.meshinjector.chart;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Just enough of a kube-apiserver for Helm's {@code lookup}: helm-java's {@code template()} runs an
 * install dry run that still talks to a cluster for {@code lookup}, so without a server every
 * render fails, and with this one the upgrade path (a Secret that is already there) can be tested.
 * It serves core/v1 and admissionregistration.k8s.io/v1 discovery and GETs of the Secrets and
 * webhook configurations a test puts in; everything else is 404.
 *
 * <p>Helm reads the server from {@code KUBECONFIG}, which the tests module's surefire configuration
 * points at {@code target/chart-tests/kubeconfig}; this class writes that file.
 */
final class FakeKubeApi {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KUBECONFIG_SUFFIX = "chart-tests/kubeconfig";
  private static FakeKubeApi instance;

  private final HttpServer server;
  private final Map<String, Map<String, Object>> secrets = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Object>> webhooks = new ConcurrentHashMap<>();
  private static final String WEBHOOKS =
      "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/";
  private static final Map<String, Object> NOT_FOUND =
      Map.of(
          "kind",
          "Status",
          "apiVersion",
          "v1",
          "status",
          "Failure",
          "reason",
          "NotFound",
          "code",
          404);

  private FakeKubeApi() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(null);
    server.start();
  }

  /** The one server of this JVM, with KUBECONFIG pointing at it. */
  static synchronized FakeKubeApi get() {
    if (instance == null) {
      try {
        instance = new FakeKubeApi();
        instance.writeKubeconfig();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return instance;
  }

  /** A Secret that {@code lookup "v1" "Secret" ns name} returns until {@link #clear()}. */
  void putSecret(String namespace, String name, Map<String, String> base64Data) {
    Map<String, Object> secret = new LinkedHashMap<>();
    secret.put("apiVersion", "v1");
    secret.put("kind", "Secret");
    secret.put("metadata", Map.of("name", name, "namespace", namespace));
    secret.put("type", "kubernetes.io/tls");
    secret.put("data", base64Data);
    secrets.put(namespace + "/" + name, secret);
  }

  /** A MutatingWebhookConfiguration that {@code lookup} returns until {@link #clear()}. */
  void putWebhookConfiguration(String name, Map<String, Object> labels) {
    webhooks.put(
        name,
        Map.of(
            "apiVersion",
            "admissionregistration.k8s.io/v1",
            "kind",
            "MutatingWebhookConfiguration",
            "metadata",
            Map.of("name", name, "labels", labels)));
  }

  void clear() {
    secrets.clear();
    webhooks.clear();
  }

  private void writeKubeconfig() throws IOException {
    String env = System.getenv("KUBECONFIG");
    // never overwrite a developer's real kubeconfig: only the file the build set aside for this
    if (env == null || !env.replace('\\', '/').endsWith(KUBECONFIG_SUFFIX)) {
      throw new IllegalStateException(
          "chart tests need KUBECONFIG=<somewhere>/"
              + KUBECONFIG_SUFFIX
              + " (set by the tests module's surefire configuration; set it when running from an"
              + " IDE), because helm-java's template() calls the API server for lookup; was "
              + env);
    }
    Path file = Path.of(env);
    Files.createDirectories(file.getParent());
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
          - name: fake
            cluster: {server: "http://127.0.0.1:%d"}
        contexts:
          - name: fake
            context: {cluster: fake, namespace: default}
        current-context: fake
        users:
          - name: fake
            user: {}
        """
            .formatted(server.getAddress().getPort()));
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    Object body;
    int status = 200;
    if (path.equals("/api")) {
      body = Map.of("kind", "APIVersions", "versions", new String[] {"v1"});
    } else if (path.equals("/apis")) {
      Map<String, Object> version =
          Map.of("groupVersion", "admissionregistration.k8s.io/v1", "version", "v1");
      body =
          Map.of(
              "kind",
              "APIGroupList",
              "apiVersion",
              "v1",
              "groups",
              new Object[] {
                Map.of(
                    "name",
                    "admissionregistration.k8s.io",
                    "versions",
                    new Object[] {version},
                    "preferredVersion",
                    version)
              });
    } else if (path.equals("/apis/admissionregistration.k8s.io/v1")) {
      body =
          Map.of(
              "kind",
              "APIResourceList",
              "groupVersion",
              "admissionregistration.k8s.io/v1",
              "resources",
              new Object[] {
                Map.of(
                    "name", "mutatingwebhookconfigurations",
                    "singularName", "mutatingwebhookconfiguration",
                    "namespaced", false,
                    "kind", "MutatingWebhookConfiguration",
                    "verbs", new String[] {"get", "list"})
              });
    } else if (path.equals("/api/v1")) {
      body =
          Map.of(
              "kind",
              "APIResourceList",
              "groupVersion",
              "v1",
              "resources",
              new Object[] {
                Map.of(
                    "name", "secrets",
                    "singularName", "secret",
                    "namespaced", true,
                    "kind", "Secret",
                    "verbs", new String[] {"get", "list"})
              });
    } else if (path.startsWith(WEBHOOKS)) {
      body = webhooks.get(path.substring(WEBHOOKS.length()));
      if (body == null) {
        status = 404;
        body = NOT_FOUND;
      }
    } else {
      body = secretAt(path);
      if (body == null) {
        status = 404;
        body =
            Map.of(
                "kind", "Status",
                "apiVersion", "v1",
                "status", "Failure",
                "reason", "NotFound",
                "code", 404);
      }
    }
    byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** /api/v1/namespaces/{ns}/secrets/{name} */
  private Object secretAt(String path) {
    String[] parts = path.split("/");
    if (parts.length == 7
        && parts[1].equals("api")
        && parts[2].equals("v1")
        && parts[3].equals("namespaces")
        && parts[5].equals("secrets")) {
      return secrets.get(parts[4] + "/" + parts[6]);
    }
    return null;
  }
}
