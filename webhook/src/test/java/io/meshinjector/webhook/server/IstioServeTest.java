package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.rfc6902.Parsson;
import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.support.NoDrain;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.ServedContexts;
import io.meshinjector.webhook.support.Tls;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
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
 * changes nothing, and Istio's own opt-out and refused annotations are honoured, {@code
 * sidecar.istio.io/proxyImage} included (refused under {@code imageAndUserOverrides: refuse}). The
 * app's HTTP, gRPC and TCP probes go through the agent unless the pod says {@code
 * sidecar.istio.io/rewriteAppHTTPProbers: "false"}, and the CNI path still meets Pod Security
 * {@code restricted}.
 */
class IstioServeTest {
  @TempDir static Path tmp;

  static ConfigurableApplicationContext context;
  static HttpClient client;
  static URI mutate;

  /** A running {@code serve} with its own config and TLS directory. */
  record Server(ConfigurableApplicationContext context, HttpClient client, URI mutate) {}

  @BeforeAll
  static void serve() throws Exception {
    Server s = start("default", "mesh: istio\n");
    context = s.context();
    client = s.client();
    mutate = s.mutate();
  }

  static Server start(String name, String configYaml) throws Exception {
    Path tls = tmp.resolve("tls-" + name);
    Path config = tmp.resolve("config-" + name + ".yaml");
    NoDrain.config(config, configYaml);
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
    ConfigurableApplicationContext ctx = ServedContexts.last();
    ServerPorts ports = ctx.getBean(ServerPorts.class);
    return new Server(
        ctx,
        Tls.client(tls.resolve("ca.crt")),
        URI.create("https://localhost:" + ports.https() + "/mutate"));
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
  }

  private static JsonNode review(ObjectNode pod) throws Exception {
    return review(client, mutate, pod);
  }

  private static JsonNode review(HttpClient client, URI mutate, ObjectNode pod) throws Exception {
    return Reviews.post(client, mutate, Reviews.podCreate("admission.k8s.io/v1", "shop", pod));
  }

  private static ObjectNode patched(ObjectNode pod, JsonNode response) throws Exception {
    String patch =
        new String(
            Base64.getDecoder().decode(response.path("patch").asText()), StandardCharsets.UTF_8);
    return (ObjectNode) Parsson.apply(patch, pod);
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
    // the pod's ports, then the agent's, as istiod writes them
    assertThat(args.get(args.indexOf("-d") + 1)).isEqualTo("15090,15021,9901,15020");
  }

  @Test
  void istiosOptOutIsHonouredAndPrivilegeChangingAnnotationsAreRefused() throws Exception {
    JsonNode optOut = review(pod(Map.of("sidecar.istio.io/inject", "false")));
    assertThat(optOut.path("allowed").asBoolean()).isTrue();
    assertThat(optOut.has("patch")).isFalse();

    JsonNode refused = review(pod(Map.of("sidecar.istio.io/proxyImageType", "debug")));
    assertThat(refused.path("allowed").asBoolean()).isFalse();
    assertThat(refused.at("/status/message").asText()).contains("sidecar.istio.io/proxyImageType");

    JsonNode tproxy = review(pod(Map.of("sidecar.istio.io/interceptionMode", "TPROXY")));
    assertThat(tproxy.path("allowed").asBoolean()).isFalse();
    assertThat(tproxy.at("/status/message").asText())
        .contains("sidecar.istio.io/interceptionMode")
        .contains("TPROXY");
  }

  private static final String PROXY_IMAGE = "registry.example:5000/mesh/proxyv2:1.28.0-patched";

  /**
   * sidecar.istio.io/proxyImage, as istiod takes it: the image of istio-proxy and of istio-init
   * (istiod's template gives the redirect container the annotation too), and nothing else.
   */
  @Test
  void proxyImageIsTheImageOfTheProxyAndOfIstioInit() throws Exception {
    ObjectNode pod = pod(Map.of("sidecar.istio.io/proxyImage", PROXY_IMAGE));
    JsonNode response = review(pod);
    assertThat(response.path("allowed").asBoolean()).isTrue();
    ObjectNode injected = patched(pod, response);
    assertThat(proxy(injected).path("image").asText()).isEqualTo(PROXY_IMAGE);
    assertThat(named(injected.at("/spec/initContainers"), "istio-init").path("image").asText())
        .isEqualTo(PROXY_IMAGE);
    assertThat(named(injected.at("/spec/containers"), "checkout").path("image").asText())
        .isEqualTo(pod.at("/spec/containers/0/image").asText());

    // without it, the configured image
    ObjectNode plain = pod(Map.of());
    ObjectNode plainInjected = patched(plain, review(plain));
    assertThat(proxy(plainInjected).path("image").asText())
        .isEqualTo("docker.io/istio/proxyv2:1.28.0");

    // a value istiod would not take (no repository path) refuses the pod, naming the annotation
    JsonNode bare = review(pod(Map.of("sidecar.istio.io/proxyImage", "proxyv2:1.28.0")));
    assertThat(bare.path("allowed").asBoolean()).isFalse();
    assertThat(bare.at("/status/message").asText())
        .contains("sidecar.istio.io/proxyImage")
        .contains("'proxyv2:1.28.0'");
  }

  /** An operator who refuses image overrides gets a refusal naming the annotation and its value. */
  @Test
  void proxyImageIsRefusedUnderImageAndUserOverridesRefuse() throws Exception {
    Server refusing = start("refuse", "mesh: istio\ninjection: {imageAndUserOverrides: refuse}\n");
    try {
      JsonNode r =
          review(
              refusing.client(),
              refusing.mutate(),
              pod(Map.of("sidecar.istio.io/proxyImage", PROXY_IMAGE)));
      assertThat(r.path("allowed").asBoolean()).isFalse();
      assertThat(r.has("patch")).isFalse();
      assertThat(r.at("/status/message").asText())
          .contains("sidecar.istio.io/proxyImage")
          .contains("'" + PROXY_IMAGE + "'")
          .contains("injection.imageAndUserOverrides: refuse");
      // the same server still injects a pod that names no image
      ObjectNode plain = pod(Map.of());
      JsonNode ok = review(refusing.client(), refusing.mutate(), plain);
      assertThat(ok.path("allowed").asBoolean()).isTrue();
      assertThat(proxy(patched(plain, ok)).path("image").asText())
          .isEqualTo("docker.io/istio/proxyv2:1.28.0");
    } finally {
      refusing.context().close();
    }
  }

  /** The example pod with an HTTP liveness, a gRPC readiness and a TCP startup probe. */
  private static ObjectNode probedPod(Map<String, String> annotations) throws Exception {
    ObjectNode pod = pod(annotations);
    ObjectNode app = (ObjectNode) pod.at("/spec/containers/0");
    ((ObjectNode) app.at("/ports/0")).put("name", "http");
    app.set(
        "livenessProbe",
        Reviews.JSON.readTree(
            "{\"httpGet\":{\"path\":\"/healthz\",\"port\":\"http\"},\"periodSeconds\":5}"));
    app.set(
        "readinessProbe", Reviews.JSON.readTree("{\"grpc\":{\"port\":9090},\"timeoutSeconds\":2}"));
    app.set("startupProbe", Reviews.JSON.readTree("{\"tcpSocket\":{\"port\":8080}}"));
    return pod;
  }

  private static JsonNode named(JsonNode list, String name) {
    for (JsonNode c : list) {
      if (c.path("name").asText().equals(name)) {
        return c;
      }
    }
    return null;
  }

  private static JsonNode proxy(JsonNode pod) {
    JsonNode p = named(pod.at("/spec/containers"), "istio-proxy");
    return p != null ? p : named(pod.at("/spec/initContainers"), "istio-proxy");
  }

  private static String env(JsonNode container, String name) {
    JsonNode e = named(container.path("env"), name);
    return e == null ? null : e.path("value").asText();
  }

  @Test
  void appProbesGoThroughTheAgentWhichIsHandedTheOriginals() throws Exception {
    ObjectNode pod = probedPod(Map.of());
    ObjectNode injected = patched(pod, review(pod));
    JsonNode app = named(injected.at("/spec/containers"), "checkout");

    assertThat(app.get("livenessProbe"))
        .isEqualTo(
            Reviews.JSON.readTree(
                "{\"httpGet\":{\"path\":\"/app-health/checkout/livez\",\"port\":15020},"
                    + "\"periodSeconds\":5}"));
    assertThat(app.get("readinessProbe"))
        .isEqualTo(
            Reviews.JSON.readTree(
                "{\"httpGet\":{\"path\":\"/app-health/checkout/readyz\",\"port\":15020},"
                    + "\"timeoutSeconds\":2}"));
    assertThat(app.get("startupProbe"))
        .isEqualTo(
            Reviews.JSON.readTree(
                "{\"httpGet\":{\"path\":\"/app-health/checkout/startupz\",\"port\":15020}}"));
    assertThat(Reviews.JSON.readTree(env(proxy(injected), "ISTIO_KUBE_APP_PROBERS")))
        .isEqualTo(
            Reviews.JSON.readTree(
                "{\"/app-health/checkout/livez\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":8080}},"
                    + "\"/app-health/checkout/readyz\":{\"grpc\":{\"port\":9090,\"service\":null},"
                    + "\"timeoutSeconds\":2},"
                    + "\"/app-health/checkout/startupz\":{\"tcpSocket\":{\"port\":8080}}}"));

    JsonNode again = review(injected);
    assertThat(again.path("allowed").asBoolean()).isTrue();
    assertThat(again.has("patch")).as("re-injection adds no patch").isFalse();
  }

  @Test
  void rewriteAppHttpProbersFalseLeavesTheAppsProbesAsTheyAre() throws Exception {
    ObjectNode pod = probedPod(Map.of("sidecar.istio.io/rewriteAppHTTPProbers", "false"));
    JsonNode response = review(pod);
    assertThat(response.path("allowed").asBoolean()).isTrue();
    ObjectNode injected = patched(pod, response);
    assertThat(named(injected.at("/spec/containers"), "checkout"))
        .isEqualTo(named(pod.at("/spec/containers"), "checkout"));
    assertThat(env(proxy(injected), "ISTIO_KUBE_APP_PROBERS")).isNull();
  }

  @Test
  void theCniPathStillMeetsPodSecurityRestrictedWithRewrittenProbes() throws Exception {
    ObjectNode pod = probedPod(Map.of());
    // the example cluster's EKS pool runs istio-cni; a restricted app, so the whole pod is judged
    ((ObjectNode) pod.get("spec")).putObject("nodeSelector").put("pool", "eks");
    ((ObjectNode) pod.get("spec"))
        .set(
            "securityContext",
            Reviews.JSON.readTree(
                "{\"runAsNonRoot\":true,\"seccompProfile\":{\"type\":\"RuntimeDefault\"}}"));
    ((ObjectNode) pod.at("/spec/containers/0"))
        .set(
            "securityContext",
            Reviews.JSON.readTree(
                "{\"allowPrivilegeEscalation\":false,\"capabilities\":{\"drop\":[\"ALL\"]}}"));
    ObjectNode injected = patched(pod, review(pod));
    String decision = injected.at("/metadata/annotations/mesh-injector.io~1decision").asText();
    assertThat(decision).startsWith("cni");
    assertThat(names(injected.at("/spec/initContainers"))).contains("istio-validation");
    assertThat(
            injected
                .at("/metadata/annotations/traffic.sidecar.istio.io~1excludeInboundPorts")
                .asText())
        .isEqualTo("15020");
    assertThat(env(proxy(injected), "ISTIO_KUBE_APP_PROBERS"))
        .contains("/app-health/checkout/livez");
    assertThat(restrictedViolations(injected)).isEmpty();

    JsonNode again = review(injected);
    assertThat(again.has("patch")).as("re-injection adds no patch").isFalse();
  }

  /**
   * The container and volume rules of Pod Security {@code restricted}
   * (kubernetes.io/docs/concepts/security/pod-security-standards), the pod's own settings counting
   * where a container has none.
   */
  private static List<String> restrictedViolations(JsonNode pod) {
    List<String> out = new ArrayList<>();
    JsonNode podSc = pod.at("/spec/securityContext");
    List<JsonNode> all = new ArrayList<>();
    pod.at("/spec/initContainers").forEach(all::add);
    pod.at("/spec/containers").forEach(all::add);
    for (JsonNode c : all) {
      String n = c.path("name").asText();
      JsonNode sc = c.path("securityContext");
      if (sc.path("privileged").asBoolean(false)) {
        out.add(n + ": privileged");
      }
      if (!sc.path("allowPrivilegeEscalation").isBoolean()
          || sc.path("allowPrivilegeEscalation").asBoolean()) {
        out.add(n + ": allowPrivilegeEscalation must be false");
      }
      List<String> drop = new ArrayList<>();
      sc.at("/capabilities/drop").forEach(d -> drop.add(d.asText()));
      if (!drop.contains("ALL")) {
        out.add(n + ": capabilities must drop ALL");
      }
      sc.at("/capabilities/add")
          .forEach(
              a -> {
                if (!a.asText().equals("NET_BIND_SERVICE")) {
                  out.add(n + ": adds " + a.asText());
                }
              });
      boolean nonRoot =
          sc.has("runAsNonRoot")
              ? sc.path("runAsNonRoot").asBoolean()
              : podSc.path("runAsNonRoot").asBoolean(false);
      if (!nonRoot || sc.path("runAsUser").asInt(-1) == 0) {
        out.add(n + ": must run as non-root");
      }
      String seccomp =
          sc.at("/seccompProfile/type").asText(podSc.at("/seccompProfile/type").asText(""));
      if (!seccomp.equals("RuntimeDefault") && !seccomp.equals("Localhost")) {
        out.add(n + ": seccompProfile must be RuntimeDefault or Localhost");
      }
      c.path("ports")
          .forEach(
              p -> {
                if (p.path("hostPort").asInt(0) != 0) {
                  out.add(n + ": hostPort");
                }
              });
    }
    List<String> allowed =
        List.of(
            "configMap",
            "csi",
            "downwardAPI",
            "emptyDir",
            "ephemeral",
            "persistentVolumeClaim",
            "projected",
            "secret");
    for (JsonNode v : pod.at("/spec/volumes")) {
      v.fieldNames()
          .forEachRemaining(
              f -> {
                if (!f.equals("name") && !allowed.contains(f)) {
                  out.add("volume " + v.path("name").asText() + ": " + f);
                }
              });
    }
    return out;
  }
}
