package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.meshinjector.rfc6902.Parsson;
import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.NoDrain;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.ServedContexts;
import io.meshinjector.webhook.support.Tls;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Linkerd's configuration annotations as users meet them: through {@code serve} over real TLS (the
 * patch applied with Parsson) and through {@code inject} and {@code explain} on the same cluster
 * file, which must give the same pod; bad values come back as the review's warnings, never a
 * refusal; Linkerd's opt-out keeps a pod of an opted-in namespace out.
 */
class LinkerdAnnotationsServeTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Map<String, String> OVERRIDES =
      Map.of(
          "config.linkerd.io/admin-port", "9998",
          "config.linkerd.io/proxy-cpu-limit", "1",
          "config.linkerd.io/proxy-cpu-request", "0.5",
          "config.linkerd.io/proxy-version", "override",
          "config.linkerd.io/skip-inbound-ports", "7777,8888");

  @TempDir static Path tmp;
  static ConfigurableApplicationContext context;
  static HttpClient client;
  static URI mutate;
  static Path cluster = Reviews.testCluster("linkerd-annotated.yaml");

  @BeforeAll
  static void serve() throws Exception {
    Path tls = tmp.resolve("tls");
    var cli = MeshInjector.commandLine();
    int code =
        cli.execute(
            "serve",
            "--port=0",
            "--metrics-port=0",
            "--tls-dir=" + tls,
            "--config=" + NoDrain.config(tls.resolveSibling("config.yaml"), ""),
            "--cluster=" + cluster);
    assertThat(code).isZero();
    context = ServedContexts.last();
    mutate =
        URI.create("https://localhost:" + context.getBean(ServerPorts.class).https() + "/mutate");
    client = Tls.client(tls.resolve("ca.crt"));
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
  }

  private static ObjectNode pod(Map<String, String> annotations) {
    ObjectNode pod = Reviews.examplePod();
    ObjectNode meta = (ObjectNode) pod.get("metadata");
    meta.remove("namespace");
    ObjectNode a = meta.putObject("annotations");
    annotations.forEach(a::put);
    return pod;
  }

  private static JsonNode review(String namespace, ObjectNode pod) throws Exception {
    return Reviews.post(client, mutate, Reviews.podCreate("admission.k8s.io/v1", namespace, pod));
  }

  private static ObjectNode patched(ObjectNode pod, JsonNode response) throws Exception {
    String patch =
        new String(
            Base64.getDecoder().decode(response.path("patch").asText()), StandardCharsets.UTF_8);
    return (ObjectNode) Parsson.apply(patch, pod);
  }

  /** {@code inject} on the same pod, as a manifest in {@code namespace}. */
  private static JsonNode injectedByTheCli(String namespace, ObjectNode pod) throws Exception {
    ObjectNode manifest = pod.deepCopy();
    manifest.put("apiVersion", "v1");
    manifest.put("kind", "Pod");
    ((ObjectNode) manifest.get("metadata")).put("namespace", namespace);
    Path file = Files.createTempFile(tmp, "pod", ".yaml");
    Files.writeString(file, YAML.writeValueAsString(manifest));
    Cli.Run run = Cli.run("inject", "-f", file.toString(), "--cluster", cluster.toString());
    assertThat(run.code()).as(run.err()).isZero();
    ObjectNode out = (ObjectNode) YAML.readTree(run.out());
    ((ObjectNode) out.get("metadata")).remove("namespace");
    out.remove(java.util.List.of("apiVersion", "kind"));
    return Reviews.JSON.readTree(out.toString());
  }

  @Test
  void theWebhookAndTheCliGiveTheSamePod() throws Exception {
    for (String ns : java.util.List.of("shop", "tuned")) {
      ObjectNode pod = pod(OVERRIDES);
      JsonNode response = review(ns, pod);
      assertThat(response.path("allowed").asBoolean()).isTrue();
      ObjectNode served = patched(pod, response);
      served.remove(java.util.List.of("apiVersion", "kind"));
      JsonNode proxy = served.at("/spec/initContainers/1");
      assertThat(proxy.path("image").asText()).isEqualTo("cr.l5d.io/linkerd/proxy:override");
      assertThat(proxy.at("/resources/requests/cpu").asText()).isEqualTo("500m");
      assertThat(Reviews.JSON.readTree(served.toString()))
          .as(ns)
          .isEqualTo(injectedByTheCli(ns, pod(OVERRIDES)));
    }
  }

  @Test
  void aPodInheritsItsNamespacesValuesWrittenOntoIt() throws Exception {
    ObjectNode pod = pod(Map.of());
    ObjectNode served = patched(pod, review("tuned", pod));
    assertThat(served.at("/metadata/annotations/config.linkerd.io~1skip-outbound-ports").asText())
        .isEqualTo("5432");
    assertThat(served.at("/spec/initContainers/0/args").toString())
        .contains("\"--outbound-ports-to-ignore\",\"5432\"");
    assertThat(served.at("/spec/initContainers/1/resources/limits/memory").asText())
        .isEqualTo("256Mi");
    assertThat(served.at("/metadata/annotations/mesh-injector.io~1decision").asText())
        .startsWith("init/nft native-sidecar");
  }

  @Test
  void aBadValueIsAWarningOfTheReviewAndTheConfiguredValueApplies() throws Exception {
    ObjectNode pod = pod(Map.of("config.linkerd.io/proxy-log-format", "xml"));
    JsonNode response = review("shop", pod);
    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.path("warnings").toString())
        .contains("config.linkerd.io/proxy-log-format")
        .contains("'xml'")
        .contains("plain, json");
    ObjectNode served = patched(pod, response);
    assertThat(served.at("/spec/initContainers/1/env").toString())
        .contains("{\"name\":\"LINKERD2_PROXY_LOG_FORMAT\",\"value\":\"plain\"}");
  }

  @Test
  void linkerdsOptOutKeepsThePodOut() throws Exception {
    JsonNode onPod = review("shop", pod(Map.of("linkerd.io/inject", "disabled")));
    assertThat(onPod.path("allowed").asBoolean()).isTrue();
    assertThat(onPod.has("patch")).isFalse();
    JsonNode onNs = review("opted-out", pod(Map.of()));
    assertThat(onNs.has("patch")).isFalse();
  }

  @Test
  void explainNamesEachOverrideAndWhereItCameFrom() throws Exception {
    ObjectNode manifest = pod(Map.of("config.linkerd.io/admin-port", "9998"));
    manifest.put("apiVersion", "v1");
    manifest.put("kind", "Pod");
    ((ObjectNode) manifest.get("metadata")).put("namespace", "tuned");
    Path file = Files.createTempFile(tmp, "explain", ".yaml");
    Files.writeString(file, YAML.writeValueAsString(manifest));
    Cli.Run text = Cli.run("explain", "-f", file.toString(), "--cluster", cluster.toString());
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("overrides:")
        .contains("config.linkerd.io/admin-port: 9998 (from the pod)")
        .contains("config.linkerd.io/skip-outbound-ports: 5432 (from the namespace)");
    Cli.Run json =
        Cli.run("explain", "-f", file.toString(), "--cluster", cluster.toString(), "-o", "json");
    JsonNode overrides = Reviews.JSON.readTree(json.out()).get(0).get("overrides");
    assertThat(overrides.toString())
        .contains(
            "{\"annotation\":\"config.linkerd.io/admin-port\",\"value\":\"9998\",\"from\":\"pod\"}")
        .contains(
            "{\"annotation\":\"config.linkerd.io/skip-outbound-ports\",\"value\":\"5432\",\"from\":\"namespace\"}");
  }
}
