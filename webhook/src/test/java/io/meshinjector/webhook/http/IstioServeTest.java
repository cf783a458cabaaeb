package io.meshinjector.webhook.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.cli.ServeCommand;
import io.meshinjector.webhook.server.ServerPorts;
import io.meshinjector.webhook.support.Parsson;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.Tls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code serve} with {@code mesh: istio} over real TLS: the API server's reviews come back with
 * Istio-compatible pods (patches applied by Parsson), the layout invariants hold, re-injection
 * changes nothing, and Istio's own opt-out and refused annotations are honoured.
 */
class IstioServeTest {
  @TempDir static Path tmp;

  static ConfigurableApplicationContext context;
  static HttpClient client;
  static URI mutate;

  @BeforeAll
  static void serve() throws Exception {
    Path tls = tmp.resolve("tls");
    Path config = tmp.resolve("config.yaml");
    Files.writeString(config, "mesh: istio\n");
    var cli = MeshInjector.commandLine();
    int code =
        cli.execute(
            "serve",
            "--port=0",
            "--metrics-port=0",
            "--tls-dir=" + tls,
            "--config=" + config,
            "--cluster=" + Reviews.example("cluster.yaml"));
    assertThat(code).isZero();
    context = ((ServeCommand) cli.getSubcommands().get("serve").getCommand()).context();
    ServerPorts ports = context.getBean(ServerPorts.class);
    mutate = URI.create("https://localhost:" + ports.https() + "/mutate");
    client = Tls.client(tls.resolve("ca.crt"));
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
  }

  private static JsonNode review(ObjectNode pod) throws Exception {
    ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", "shop", pod);
    HttpResponse<String> r =
        Tls.send(
            client,
            HttpRequest.newBuilder(mutate)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofByteArray(Reviews.JSON.writeValueAsBytes(review)))
                .build(),
            HttpResponse.BodyHandlers.ofString(),
            () -> {});
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode response = Reviews.JSON.readTree(r.body()).path("response");
    assertThat(response.path("uid").asText()).isEqualTo(review.at("/request/uid").asText());
    return response;
  }

  private static ObjectNode patched(ObjectNode pod, JsonNode response) throws Exception {
    String patch =
        new String(
            Base64.getDecoder().decode(response.path("patch").asText()), StandardCharsets.UTF_8);
    return (ObjectNode) Parsson.apply(Reviews.JSON.readTree(patch), pod);
  }

  private static ObjectNode pod(Map<String, String> annotations) {
    ObjectNode pod = Reviews.examplePod();
    ObjectNode a = ((ObjectNode) pod.get("metadata")).putObject("annotations");
    annotations.forEach(a::put);
    return pod;
  }

  private static List<String> names(JsonNode containers) {
    List<String> out = new ArrayList<>();
    containers.forEach(c -> out.add(c.path("name").asText()));
    return out;
  }

  @Test
  void injectsAnIstioPodWhoseLayoutHoldsAndReinjectionChangesNothing() throws Exception {
    ObjectNode pod = pod(Map.of());
    JsonNode response = review(pod);
    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
    ObjectNode injected = patched(pod, response);

    List<String> inits = names(injected.at("/spec/initContainers"));
    List<String> containers = names(injected.at("/spec/containers"));
    List<String> all = new ArrayList<>(inits);
    all.addAll(containers);
    assertThat(all.stream().filter("istio-proxy"::equals)).hasSize(1);
    String decision = injected.at("/metadata/annotations/mesh-injector.io~1decision").asText();
    // the example pod's candidates are RHEL 8 nodes with kubelet 1.31: init path, nft
    assertThat(decision).startsWith("init/nft");
    assertThat(all).contains("istio-init").doesNotContain("linkerd-proxy", "istio-validation");
    if (decision.contains("native-sidecar")) {
      assertThat(inits.subList(0, 2)).containsExactly("istio-init", "istio-proxy");
    } else {
      assertThat(containers.get(0)).isEqualTo("istio-proxy");
      assertThat(inits.get(inits.size() - 1)).isEqualTo("istio-init");
    }
    JsonNode status =
        Reviews.JSON.readTree(
            injected.at("/metadata/annotations/sidecar.istio.io~1status").asText());
    assertThat(status.path("initContainers").toString()).contains("istio-init");
    assertThat(injected.at("/metadata/labels/security.istio.io~1tlsMode").asText())
        .isEqualTo("istio");
    assertThat(injected.at("/metadata/labels/service.istio.io~1canonical-name").asText())
        .isEqualTo("checkout");

    JsonNode again = review(injected);
    assertThat(again.path("allowed").asBoolean()).isTrue();
    assertThat(again.has("patch")).as("re-injection adds no patch").isFalse();
  }

  @Test
  void istioInterceptionAnnotationsReachIstioIptables() throws Exception {
    ObjectNode pod =
        pod(
            Map.of(
                "traffic.sidecar.istio.io/excludeOutboundIPRanges", "10.96.0.1/32",
                "traffic.sidecar.istio.io/excludeInboundPorts", "9901"));
    ObjectNode injected = patched(pod, review(pod));
    JsonNode init = null;
    for (JsonNode c : injected.at("/spec/initContainers")) {
      if (c.path("name").asText().equals("istio-init")) {
        init = c;
      }
    }
    assertThat(init).isNotNull();
    List<String> args = new ArrayList<>();
    init.path("args").forEach(a -> args.add(a.asText()));
    assertThat(args.get(args.indexOf("-x") + 1)).isEqualTo("10.96.0.1/32");
    assertThat(args.get(args.indexOf("-d") + 1)).isEqualTo("15090,15021,15020,9901");
  }

  @Test
  void istiosOptOutIsHonouredAndPrivilegeChangingAnnotationsAreRefused() throws Exception {
    JsonNode optOut = review(pod(Map.of("sidecar.istio.io/inject", "false")));
    assertThat(optOut.path("allowed").asBoolean()).isTrue();
    assertThat(optOut.has("patch")).isFalse();

    JsonNode refused = review(pod(Map.of("sidecar.istio.io/proxyImage", "evil/proxy:1")));
    assertThat(refused.path("allowed").asBoolean()).isFalse();
    assertThat(refused.at("/status/message").asText()).contains("sidecar.istio.io/proxyImage");

    JsonNode tproxy = review(pod(Map.of("sidecar.istio.io/interceptionMode", "TPROXY")));
    assertThat(tproxy.path("allowed").asBoolean()).isFalse();
    assertThat(tproxy.at("/status/message").asText())
        .contains("sidecar.istio.io/interceptionMode")
        .contains("TPROXY");
  }
}
