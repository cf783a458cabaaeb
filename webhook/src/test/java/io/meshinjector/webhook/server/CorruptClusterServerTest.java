package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.support.NoDrain;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.ServedContexts;
import io.meshinjector.webhook.support.Tls;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The served webhook with a {@code --cluster} file full of corrupt NodeCapabilities (see the
 * resource): it starts, and an admission for a pod still gets a 200 answer.
 */
class CorruptClusterServerTest {
  @TempDir static Path tmp;

  static ConfigurableApplicationContext context;
  static HttpClient client;
  static URI mutate;

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
            "--cluster="
                + Path.of("src/test/resources/cluster/corrupt-nodecapabilities.yaml")
                    .toAbsolutePath());
    assertThat(code).as("serve starts despite the corrupt objects").isZero();
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

  @Test
  void aPodStillGetsAnAnswer() throws Exception {
    ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());

    JsonNode response = Reviews.post(client, mutate, review);

    assertThat(response.path("allowed").asBoolean()).isTrue();
    // a decision was made over the nodes, not a skip before it
    assertThat(response.path("auditAnnotations").path("decision").asText())
        .isNotEqualTo("not-enabled");
    assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
  }
}
