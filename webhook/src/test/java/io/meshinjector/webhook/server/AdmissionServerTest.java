package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.rfc6902.Parsson;
import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.admission.PodAdmission;
import io.meshinjector.webhook.cluster.ClusterConnection;
import io.meshinjector.webhook.support.Captured;
import io.meshinjector.webhook.support.NoDrain;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.ServedContexts;
import io.meshinjector.webhook.support.ServedLimits;
import io.meshinjector.webhook.support.ServerLog;
import io.meshinjector.webhook.support.Tls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationHook;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * The served application over real TLS on a random port, started the way {@code serve} starts it:
 * what is about the transport (TLS versions, probes and metrics on their ports, the 500's log line
 * as the server writes it), plus one admission end to end as the smoke test that the server wires
 * the core, its patch applied with an independent JSON Patch implementation (Parsson). One test
 * configuration is added to the application: {@link FailingView}, the only way to make a real
 * server fail on demand.
 *
 * <p>The admission cases are in-process, in {@link
 * io.meshinjector.webhook.admission.AdmissionCasesTest}.
 */
class AdmissionServerTest {

  @TempDir static Path tmp;

  static ConfigurableApplicationContext context;
  static ServerLog serverLog;
  static HttpClient client;
  static URI mutate;
  static URI base;
  static URI metrics;

  @BeforeAll
  static void serve() throws Exception {
    ServerLog.logHttp2ConnectionErrors();
    // empty: serve writes a self-signed set there, as in the README
    Path tls = tmp.resolve("tls");
    // the config whose limits admission.AdmissionCasesTest answers under, in-process
    Path config = tmp.resolve("config.yaml");
    NoDrain.config(config, ServedLimits.CONFIG_YAML);
    var cli = MeshInjector.commandLine();
    // serve as it is, plus one configuration: a view that fails on a marked namespace
    SpringApplicationHook addFailingView =
        app -> {
          app.addPrimarySources(List.of(FailingView.class));
          return new SpringApplicationRunListener() {};
        };
    int code =
        SpringApplication.withHook(
            addFailingView,
            () ->
                cli.execute(
                    "serve",
                    "--port=0",
                    "--metrics-port=0",
                    "--tls-dir=" + tls,
                    "--config=" + config,
                    "--cluster=" + Reviews.example("cluster.yaml"),
                    "--cluster=" + Reviews.testCluster("inject-spellings.yaml")));
    assertThat(code).isZero();
    context = ServedContexts.last();
    assertThat(context.getBeansOfType(ClusterView.class)).hasSize(2);
    ServerPorts ports = context.getBean(ServerPorts.class);
    base = URI.create("https://localhost:" + ports.https());
    mutate = base.resolve("/mutate");
    metrics = URI.create("http://localhost:" + ports.management() + "/metrics");
    client = Tls.client(tls.resolve("ca.crt"));
    // after start-up: Spring's logging set-up would drop an appender attached before it
    serverLog = ServerLog.attach();
  }

  /** The namespace whose read {@link FailingView} fails. */
  static final String FAIL = "view-fails";

  /**
   * Takes the place of the served cluster view, which serve's admission is built over: the same
   * view, except that reading the namespace {@link #FAIL} fails, as a bug in a feeder would make
   * it.
   */
  @Configuration(proxyBeanMethods = false)
  static class FailingView {
    @Bean
    @Primary
    ClusterView failingView(ClusterConnection cluster) {
      ClusterView real = cluster.view();
      return new ClusterView() {
        @Override
        public Optional<Namespace> namespace(String name) {
          if (name.equals(FAIL)) {
            throw new IllegalStateException("secret internal detail");
          }
          return real.namespace(name);
        }

        @Override
        public NodeIndex nodes(Instant now) {
          return real.nodes(now);
        }

        @Override
        public NodeIndex latestNodes(Instant now) {
          return real.latestNodes(now);
        }
      };
    }
  }

  @AfterAll
  static void stop() {
    System.out.println("GOAWAY-RESENDS AdmissionServerTest: " + RESENDS.get());
    ServerLog.stopLoggingHttp2ConnectionErrors();
    if (serverLog != null) {
      serverLog.detach();
    }
    if (context != null) {
      context.close();
    }
    if (serverLog != null) {
      // a GOAWAY for an error on the server's side would end every request on the connection
      assertThat(serverLog.connectionErrors())
          .as("the server's HTTP/2 connection errors")
          .isEmpty();
    }
  }

  static HttpResponse<String> post(String contentType, byte[] body) throws Exception {
    return Tls.send(
        client,
        HttpRequest.newBuilder(mutate)
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString(),
        AdmissionServerTest::countResend);
  }

  /** Requests sent again after a GOAWAY (see {@link Tls#send}); reported, never hidden. */
  private static final AtomicInteger RESENDS = new AtomicInteger();

  private static void countResend() {
    System.out.println("GOAWAY-RESEND AdmissionServerTest: sent a request once more");
    RESENDS.incrementAndGet();
  }

  static HttpResponse<String> post(JsonNode review) throws Exception {
    return post("application/json", Reviews.JSON.writeValueAsBytes(review));
  }

  static JsonNode json(HttpResponse<String> r) throws Exception {
    return Reviews.JSON.readTree(r.body());
  }

  /** Applies the response's patch to the request's pod with Parsson. */
  static JsonNode patchedPod(JsonNode review, JsonNode response) throws Exception {
    JsonNode patch =
        Reviews.JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
    return Parsson.apply(patch, review.path("request").path("object"));
  }

  /** The check after every bad input: the server still injects a valid request. */
  static void validRequestStillSucceeds() throws Exception {
    ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    HttpResponse<String> r = post(review);
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode response = json(r).path("response");
    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
    assertThat(
            patchedPod(review, response)
                .at("/metadata/annotations/mesh-injector.io~1decision")
                .isTextual())
        .isTrue();
  }

  /**
   * The AOT training's cluster part: the Kubernetes client, over its own TLS trusting only the
   * serve's CA, reads the running server, and the bundled Node and Namespace lists decode.
   */
  @Test
  void theAotTrainingsClusterClientReachesTheServerOverTls() throws Exception {
    assertThat(
            io.meshinjector.webhook.server.AotTraining.clusterClient(
                base, tmp.resolve("tls/ca.crt")))
        .isEqualTo(200);
  }

  @Test
  void injectsTheExamplePodAndThePatchAppliesWithParsson() throws Exception {
    JsonNode review = Reviews.exampleJson("admission-review.json");
    HttpResponse<String> r = post(review);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(ct -> assertThat(ct).startsWith("application/json"));
    JsonNode body = json(r);
    assertThat(body.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(body.path("kind").asText()).isEqualTo("AdmissionReview");
    JsonNode response = body.path("response");
    assertThat(response.path("uid").asText())
        .isEqualTo(review.path("request").path("uid").asText());
    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.path("auditAnnotations").path("decision").asText())
        .isEqualTo("init/nft native-sidecar await");
    assertThat(response.path("auditAnnotations").path("outcome").asText()).isEqualTo("injected");

    JsonNode pod = patchedPod(review, response);
    assertThat(pod.at("/metadata/annotations/mesh-injector.io~1decision").asText())
        .isEqualTo("init/nft native-sidecar await");
    // init/nft as a native sidecar: the iptables init container in nft mode, then the proxy
    // with restartPolicy Always, and the app container as it was
    JsonNode inits = pod.at("/spec/initContainers");
    assertThat(inits).hasSize(2);
    assertThat(inits.get(0).path("name").asText()).isEqualTo("linkerd-init");
    assertThat(inits.get(0).path("args").toString()).contains("\"iptables-nft\"");
    assertThat(inits.get(1).path("name").asText()).isEqualTo("linkerd-proxy");
    assertThat(inits.get(1).path("restartPolicy").asText()).isEqualTo("Always");
    assertThat(inits.get(1).at("/lifecycle/postStart").isObject()).isTrue();
    JsonNode containers = pod.at("/spec/containers");
    assertThat(containers).hasSize(1);
    assertThat(containers.get(0))
        .isEqualTo(review.path("request").path("object").path("spec").path("containers").get(0));
  }

  @Test
  void anInternalErrorIs500WithTheUidNoStackTraceAndOneLogLine() throws Exception {
    ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", FAIL, Reviews.examplePod());
    String uid = review.path("request").path("uid").asText();

    HttpResponse<String> r;
    try (Captured log = Captured.on(PodAdmission.class)) {
      r = post(review);

      Captured.Line failed =
          log.lines().stream()
              .filter(l -> l.event().getFormattedMessage().equals("admission failed"))
              .findFirst()
              .orElseThrow();
      assertThat(failed.event().getThrowableProxy().getMessage())
          .isEqualTo("secret internal detail");
      // the text format keeps the trace on the event's line, with the request on it
      assertThat(failed.text())
          .endsWith(System.lineSeparator())
          .doesNotEndWith(" | " + System.lineSeparator())
          .contains(
              " uid="
                  + uid
                  + " namespace="
                  + FAIL
                  + " pod=checkout-6d4cf56db6-* : admission failed")
          .contains("java.lang.IllegalStateException: secret internal detail")
          .contains(" | at io.meshinjector.webhook.server.AdmissionServerTest$FailingView");
      assertThat(failed.text().strip()).doesNotContain("\n", "\r");
      assertThat(log.lines())
          .allSatisfy(
              l -> assertThat(l.text()).contains(" uid=" + uid + " namespace=" + FAIL + " "));
    }

    assertThat(r.statusCode()).isEqualTo(500);
    JsonNode status = json(r);
    assertThat(status.path("kind").asText()).isEqualTo("Status");
    assertThat(status.path("code").asInt()).isEqualTo(500);
    assertThat(status.path("message").asText()).contains(uid);
    assertThat(r.body())
        .doesNotContain("secret internal detail", "Exception", "at io.", "at java.", "\tat ");
    validRequestStillSucceeds();
  }

  @Test
  void servesTls12AndTls13() throws Exception {
    for (String protocol : new String[] {"TLSv1.2", "TLSv1.3"}) {
      HttpClient only = Tls.client(tmp.resolve("tls/ca.crt"), protocol);
      HttpResponse<String> r =
          only.send(
              HttpRequest.newBuilder(base.resolve("/healthz")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(protocol).isEqualTo(200);
      assertThat(r.sslSession())
          .hasValueSatisfying(s -> assertThat(s.getProtocol()).isEqualTo(protocol));
    }
  }

  @Test
  void healthAndReadinessOnTheHttpsPort() throws Exception {
    for (String path : new String[] {"/healthz", "/readyz"}) {
      HttpResponse<String> r =
          Tls.send(
              client,
              HttpRequest.newBuilder(base.resolve(path)).build(),
              HttpResponse.BodyHandlers.ofString(),
              AdmissionServerTest::countResend);
      assertThat(r.statusCode()).as(path).isEqualTo(200);
      assertThat(r.body()).isEqualTo("ok\n");
    }
  }

  @Test
  void prometheusMetricsOnThePlainManagementPort() throws Exception {
    validRequestStillSucceeds();
    post("text/plain", new byte[0]);
    ObjectNode pod = Reviews.examplePod();
    ((ObjectNode) pod.path("metadata"))
        .putObject("annotations")
        .put("mesh-injector.io/iptables-mode", "bogus");
    post(Reviews.podCreate("admission.k8s.io/v1", "shop", pod));

    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("mesh_injector_admission_seconds_bucket{")
        .contains(
            "mesh_injector_decisions_total{mode=\"nft\",outcome=\"injected\",path=\"init\","
                + "placement=\"native-sidecar\"}")
        .contains("mesh_injector_refusals_total{reason=\"invalid-annotation\"}")
        .contains("mesh_injector_errors_total{type=\"unsupported-media-type\"}");
  }

  /**
   * The chart's dashboard and alerts query only series this service exports: every metric name in
   * their PromQL is one the metrics port serves, after the requests that create the counters.
   */
  @Test
  void theChartsDashboardAndAlertsQueryOnlyExportedMetrics() throws Exception {
    validRequestStillSucceeds();
    post("text/plain", new byte[0]);
    ObjectNode refused = Reviews.examplePod();
    ((ObjectNode) refused.path("metadata"))
        .putObject("annotations")
        .put("mesh-injector.io/iptables-mode", "bogus");
    post(Reviews.podCreate("admission.k8s.io/v1", "shop", refused));
    ObjectNode job = Reviews.examplePod();
    ((ObjectNode) job.path("spec")).put("restartPolicy", "Never");
    post(Reviews.podCreate("admission.k8s.io/v1", "shop", job));
    String scraped =
        HttpClient.newHttpClient()
            .send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString())
            .body();
    Set<String> exported = new TreeSet<>();
    for (String line : scraped.split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        exported.add(line.split("[{ ]", 2)[0]);
      }
    }
    assertThat(exported)
        .contains(
            "mesh_injector_nodes_without_path",
            "mesh_injector_nodes_by_verdict",
            "mesh_injector_probe_reports",
            "mesh_injector_probe_report_oldest_age_seconds");
    Path chart = Path.of("..", "helm", "mesh-injector", "files");
    JsonNode dashboard =
        new ObjectMapper().readTree(chart.resolve("grafana-dashboard.json").toFile());
    List<String> queries = new ArrayList<>();
    dashboard.findValues("expr").forEach(e -> queries.add(e.asText()));
    JsonNode rules =
        new ObjectMapper(new YAMLFactory())
            .readTree(chart.resolve("prometheus-rules.yaml").toFile());
    List<String> alerts = new ArrayList<>();
    rules.findValues("expr").forEach(e -> alerts.add(e.asText()));
    assertThat(queries).hasSizeGreaterThan(10);
    assertThat(alerts).hasSize(10);
    Pattern name = Pattern.compile("\\bmesh_injector_[a-z0-9_]+");
    for (String q : concat(queries, alerts)) {
      Matcher m = name.matcher(q);
      assertThat(m.find()).as("a mesh_injector metric in %s", q).isTrue();
      do {
        assertThat(exported).as("the metric %s of the query %s", m.group(), q).contains(m.group());
      } while (m.find());
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
