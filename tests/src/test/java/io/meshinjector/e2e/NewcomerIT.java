package io.meshinjector.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.Tls;
import io.meshinjector.rfc6902.Parsson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a newcomer does after cloning, with the real jar in its own process: the README's first
 * command (on ephemeral ports), its curl line, then {@code inject} and {@code explain} on the
 * examples. The patch is applied with Eclipse Parsson, not with the code that produced it.
 */
class NewcomerIT {
  private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).normalize();
  private static final Path JAR = ROOT.resolve("webhook/target/mesh-injector.jar");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_LIMIT = Duration.ofSeconds(120);

  @TempDir static Path work;

  private static Process server;
  private static int port;
  private static HttpClient client;

  @BeforeAll
  static void serve() throws Exception {
    assertThat(JAR).as("the webhook module builds the runnable jar first").exists();
    port = KubePlane.freePort();
    Path tls = work.resolve("tls");
    server =
        new ProcessBuilder(
                java(),
                "-jar",
                JAR.toString(),
                "serve",
                "--cluster",
                ROOT.resolve("examples/cluster.yaml").toString(),
                "--tls-dir",
                tls.toString(),
                "--port",
                String.valueOf(port),
                "--metrics-port",
                String.valueOf(KubePlane.freePort()))
            .directory(ROOT.toFile())
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("serve.log").toFile())
            .start();
    Instant deadline = Instant.now().plus(START_LIMIT);
    while (!Files.exists(tls.resolve("ca.crt"))) {
      assertThat(server.isAlive()).as(log()).isTrue();
      assertThat(Instant.now()).as("ca.crt written; " + log()).isBefore(deadline);
      Thread.sleep(100);
    }
    client = HttpClient.newBuilder().sslContext(Tls.trusting(tls.resolve("ca.crt"))).build();
    while (!ready()) {
      assertThat(server.isAlive()).as(log()).isTrue();
      assertThat(Instant.now()).as("/readyz answered; " + log()).isBefore(deadline);
      Thread.sleep(100);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.destroy();
      if (!server.waitFor(20, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }

  @Test
  void readmeCurlGetsAPatchThatInjectsTheProxy() throws Exception {
    byte[] review = Files.readAllBytes(ROOT.resolve("examples/admission-review.json"));
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/mutate"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(review))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(response.body());
    JsonNode answer = body.get("response");
    assertThat(answer.get("uid").asText())
        .isEqualTo(JSON.readTree(review).at("/request/uid").asText());
    assertThat(answer.get("allowed").asBoolean()).isTrue();
    assertThat(answer.get("patchType").asText()).isEqualTo("JSONPatch");

    JsonNode patch = JSON.readTree(Base64.getDecoder().decode(answer.get("patch").asText()));
    JsonNode result = Parsson.apply(patch, JSON.readTree(review).at("/request/object"));

    List<String> initNames = names(result.at("/spec/initContainers"));
    assertThat(initNames).startsWith("linkerd-init", "linkerd-proxy");
    assertThat(result.at("/spec/initContainers/1/restartPolicy").asText()).isEqualTo("Always");
    assertThat(result.at("/spec/initContainers/0/args").toString()).contains("iptables-nft");
    assertThat(result.at("/metadata/annotations").get("mesh-injector.io/decision").asText())
        .isEqualTo(answer.at("/auditAnnotations/decision").asText());
    assertThat(names(result.at("/spec/containers"))).contains("checkout");
    // Linkerd's tools find the pod through its Deployment, not the ReplicaSet that created it
    assertThat(result.at("/metadata/labels").get("linkerd.io/proxy-deployment").asText())
        .isEqualTo("checkout");
  }

  @Test
  void injectAndExplainTheExamples() throws Exception {
    Cli inject =
        cli("inject", "-f", "examples/deployment.yaml", "--cluster", "examples/cluster.yaml");
    assertThat(inject.exit()).as(inject.stderr()).isZero();
    List<JsonNode> docs = yamlDocuments(inject.stdout());
    assertThat(docs).hasSize(3);
    for (JsonNode d : docs) {
      List<String> all = names(d.at("/spec/template/spec/initContainers"));
      all.addAll(names(d.at("/spec/template/spec/containers")));
      assertThat(all).as(d.at("/metadata/name").asText()).contains("linkerd-proxy");
    }

    Cli explain =
        cli(
            "explain",
            "-f",
            "examples/deployment.yaml",
            "--cluster",
            "examples/cluster.yaml",
            "-o",
            "json");
    assertThat(explain.exit()).as(explain.stderr()).isZero();
    JsonNode decisions = JSON.readTree(explain.stdout());
    assertThat(decisions.size()).isEqualTo(3);
    for (JsonNode d : decisions) {
      List<String> fields = new ArrayList<>();
      d.fieldNames().forEachRemaining(fields::add);
      assertThat(fields)
          .containsSubsequence(
              "workload",
              "inject",
              "rejected",
              "reason",
              "redirect",
              "iptablesMode",
              "proxy",
              "proxyAwait",
              "ipv6",
              "candidateNodes",
              "nodeConstraint",
              "warnings",
              "trace");
      assertThat(d.get("inject").asBoolean()).isTrue();
    }
  }

  @Test
  void aRefusedPodExitsWithThree() throws Exception {
    Path pod = work.resolve("refused.yaml");
    Files.writeString(
        pod,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: bad, namespace: shop, annotations: {mesh-injector.io/redirect: ebpf}}
        spec: {containers: [{name: app, image: nginx}]}
        """);
    Cli inject = cli("inject", "-f", pod.toString(), "--cluster", "examples/cluster.yaml");
    assertThat(inject.exit()).isEqualTo(3);
    assertThat(inject.stderr()).contains("mesh-injector.io/redirect").contains("ebpf");
  }

  private record Cli(int exit, String stdout, String stderr) {}

  private static Cli cli(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(java(), "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(work, "out", ".txt");
    Path err = Files.createTempFile(work, "err", ".txt");
    Process p =
        new ProcessBuilder(command)
            .directory(ROOT.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("CLI did not finish: " + command);
    }
    return new Cli(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static List<JsonNode> yamlDocuments(String yaml) throws IOException {
    YAMLFactory factory = new YAMLFactory();
    ObjectMapper mapper = new ObjectMapper(factory);
    List<JsonNode> docs = new ArrayList<>();
    try (YAMLParser parser = factory.createParser(yaml)) {
      mapper.readValues(parser, JsonNode.class).forEachRemaining(docs::add);
    }
    docs.removeIf(d -> d == null || d.isNull() || d.isMissingNode());
    return docs;
  }

  private static List<String> names(JsonNode containers) {
    List<String> out = new ArrayList<>();
    containers.forEach(c -> out.add(c.get("name").asText()));
    return out;
  }

  private static boolean ready() {
    try {
      return client
              .send(
                  HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/readyz"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static String log() {
    try {
      return "serve log:\n" + Files.readString(work.resolve("serve.log"));
    } catch (IOException e) {
      return "no serve log";
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
