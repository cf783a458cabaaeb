package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.Cli;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.RealisticNodes;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.Soak;
import io.meshinjector.plane.Tls;
import io.meshinjector.plane.Workloads;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A large cluster of realistic Nodes ({@link RealisticNodes}) against the launcher's default heap
 * outside a container (96 MiB), which does not hold a whole list of them as one body: serve and the
 * CLI read each list as one streamed response, an object at a time. As a benchmark: {@code
 * -Dlarge.nodes=5000} (or 10000), with {@code -Dlarge.heaps=limit=384Mi} for the heap the chart's
 * default 384 Mi limit gives; each run prints one line of figures (docs/operations.md). The default
 * suite runs it at 500 Nodes, the soak profile ({@code -Psoak}) at 2,000, both with the node churn.
 */
@ResourceLock(SharedPlane.PLANE_LANE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LargeClusterIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  /**
   * The cluster sizes, comma separated and increasing: serve runs at each, the nodes added between
   * runs on the same plane (creating 30,000 Nodes is most of a run); the CLI tests run at the last.
   */
  static final List<Integer> SIZES =
      java.util.Arrays.stream(
              System.getProperty("large.nodes", String.valueOf(Soak.count(500, 2000))).split(","))
          .map(String::strip)
          .map(Integer::valueOf)
          .toList();

  static final int NODES = SIZES.get(SIZES.size() - 1);

  /** The nodes that exist now, and the cluster size serve is measured at. */
  static int nodes;

  /**
   * The heaps to run {@code serve} with, one after another on the same cluster, comma separated:
   * {@code max} or {@code max/initial} (the launcher's MESH_INJECTOR_MAX_HEAP and
   * MESH_INJECTOR_MIN_HEAP); {@code limit=384Mi} for what the launcher derives from a container's
   * memory limit; empty for the launcher's defaults outside a container.
   */
  static final List<String> HEAPS = List.of(System.getProperty("large.heaps", "").split(",", -1));

  /**
   * Builds to compare, interleaved on the same plane: {@code label=jar} pairs, comma separated
   * (e.g. {@code before=/tmp/a/mesh-injector.jar,after=/tmp/b/mesh-injector.jar}), each jar with
   * its AOT cache beside it as the launcher expects; empty: this build only. With {@code
   * -Dlarge.rounds=3} every build runs with every heap three times: before, after, before, after...
   */
  static final List<String[]> BUILDS =
      System.getProperty("large.builds", "").isBlank()
          ? List.<String[]>of(new String[] {"", ""})
          : java.util.Arrays.stream(System.getProperty("large.builds").split(","))
              .map(b -> b.split("=", 2))
              .toList();

  static final int ROUNDS = Integer.getInteger("large.rounds", 1);

  /** Admissions after the sync: a few in CI, 1,000 in the benchmark (docs/benchmarks.md, RSS). */
  static final int BURST = Integer.getInteger("large.burst", 100);

  /**
   * {@code direct}: the burst is posted to {@code serve} over one HTTP/2 connection (CI); {@code
   * apiserver}: a Deployment of {@link #BURST} replicas, so the API server calls the webhook for
   * each pod the ReplicaSet controller creates.
   */
  static final String BURST_VIA = System.getProperty("large.burstVia", "direct");

  /**
   * Seconds to keep the cluster up after it is made, before the tests run, with the admin
   * kubeconfig printed: for measuring other commands by hand on the same cluster.
   */
  static final int HOLD = Integer.getInteger("large.hold", 0);

  /** More JVM flags for serve, after the GC log's: a JFR recording, say. */
  static final String JAVA_OPTS = System.getProperty("large.javaOpts", "");

  static final String NS = "mesh-injector";
  static final Pattern GC = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");
  static final int PORT = KubePlane.freePort();

  static Release release;
  static KubernetesClient admin;
  static long createdMillis;

  /** The next Deployment (of 20) a burst scales. */
  static int deployment;

  @BeforeAll
  static void aLargeCluster() throws Exception {
    admin = PLANE.plane().admin();
    long start = System.nanoTime();
    RealisticNodes.create(admin, 0, SIZES.get(0));
    nodes = SIZES.get(0);
    createdMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();
    release = Release.install(PLANE.plane(), "mi", NS, Release.urlValue(PORT));
    Workloads.namespace(admin, "shop", Map.of("inject", "enabled"), Map.of());
    for (int i = 0; i < 20; i++) {
      admin
          .apps()
          .deployments()
          .inNamespace("shop")
          .resource(
              Workloads.deployment(
                  "svc-" + i,
                  0,
                  Map.of(),
                  Workloads.appSpec(Map.of("pool", i % 2 == 0 ? "rhel" : "al2023"))))
          .create();
    }
    if (HOLD > 0) {
      System.out.printf(
          "LargeClusterIT: %d nodes made in %d ms; holding %d s; KUBECONFIG=%s%n",
          NODES, createdMillis, HOLD, PLANE.plane().adminKubeconfigFile());
      Thread.sleep(HOLD * 1000L);
    }
  }

  @Test
  @Order(1)
  void serveStreamsTheClusterAndIsReadyWithinItsHeap() throws Exception {
    for (int size : SIZES) {
      if (size > nodes) {
        long start = System.nanoTime();
        RealisticNodes.create(admin, nodes, size);
        createdMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        nodes = size;
      }
      serveAt(size);
    }
  }

  private void serveAt(int size) throws Exception {
    int runs = 0;
    for (int round = 0; round < ROUNDS; round++) {
      for (String[] build : BUILDS) {
        for (String heap : HEAPS) {
          serveOnce(runs++, heap, build);
        }
      }
    }
  }

  private void serveOnce(int run, String heapSpec, String[] build) throws Exception {
    String[] heap = heapSpec.strip().split("/");
    Path dir = PLANE.dir("serve-" + run);
    Path gcLog = dir.resolve("gc.log");
    Serve serve =
        release
            .replica("large-" + run, dir, PORT)
            .withEnv(
                "MESH_INJECTOR_JAVA_OPTS", ("-Xlog:gc:file=" + gcLog + " " + JAVA_OPTS).strip());
    String label = build[0].isEmpty() ? "" : " build=" + build[0];
    if (!build[1].isEmpty()) {
      serve.withEnv("MESH_INJECTOR_JAR", build[1]);
    }
    if (heap[0].startsWith("limit=")) {
      // the launcher reads the container's memory limit from the cgroup files
      Path cgroup = Files.createDirectories(dir.resolve("cgroup"));
      Files.writeString(cgroup.resolve("memory.max"), bytes(heap[0].substring(6)) + "\n");
      serve.withEnv("MESH_INJECTOR_CGROUP_DIR", cgroup.toString());
    } else if (!heap[0].isEmpty()) {
      serve.withEnv("MESH_INJECTOR_MAX_HEAP", heap[0]);
    }
    if (heap.length > 1) {
      serve.withEnv("MESH_INJECTOR_MIN_HEAP", heap[1]);
    }
    try (serve;
        NodeChurn churn = new NodeChurn(CHURN_PER_SECOND)) {
      // runs at several sizes append to one log file (Serve): only this process's lines count
      int logFrom = serve.log().length();
      churn.start();
      // the floor under serve's ready: the API server's own answer to the list serve reads first,
      // on the same plane, churn and cores, just before serve starts
      ListTime floor = timeTheNodeList();
      serve.start();
      Duration ready;
      try {
        ready = serve.awaitReady(Duration.ofSeconds(90));
      } catch (AssertionError notReady) {
        // a view that does not fit its heap: alive, not Ready, one line naming the limit to set
        assertThat(serve.running()).as("alive though not ready: " + notReady).isTrue();
        assertThat(serve.log().substring(logFrom))
            .contains("does not fit")
            .doesNotContain("OutOfMemoryError");
        System.out.printf(
            "LargeClusterIT: nodes=%d heap=%s created=%d ms; serve NOT ready, alive (%s);"
                + " peak heap after GC %d MiB; peak RSS %d MiB; %d node status changes%n",
            nodes,
            (heap[0].isEmpty() ? "launcher default" : heapSpec.strip()) + label,
            createdMillis,
            serve.log().lines().filter(l -> l.contains("does not fit")).findFirst().orElse(""),
            peakHeapMiB(gcLog),
            status(serve.pid(), "VmHWM") / 1024,
            churn.changes());
        return;
      }
      String afterFirstAnswer = afterFirstAnswer(serve.log().substring(logFrom), LocalTime.now());
      // the readiness call that finds the view in sync logs it on the way: the line can reach the
      // file a moment after the answer
      Await.until(
          "serve logs the view in sync at " + nodes + " nodes",
          Duration.ofSeconds(10),
          () ->
              serve.log().substring(logFrom).contains("cluster view in sync: " + nodes + " nodes"));
      long rssReady = status(serve.pid(), "VmRSS");
      long burstMillis =
          BURST_VIA.equals("apiserver")
              ? burstThroughTheApiServer("svc-" + deployment)
              : burst(serve);
      long injected = BURST_VIA.equals("apiserver") ? injected("svc-" + deployment) : BURST;
      if (BURST_VIA.equals("apiserver")) {
        // the next run's burst is its own; these pods would only load the plane
        admin.apps().deployments().inNamespace("shop").withName("svc-" + deployment++).scale(0);
      }
      assertThat(serve.running()).as("alive after the burst").isTrue();
      assertThat(serve.log()).doesNotContain("OutOfMemoryError");
      assertThat(injected).as("pods injected").isEqualTo(BURST);
      long peakHeap = peakHeapMiB(gcLog);
      System.out.printf(
          "LargeClusterIT: nodes=%d heap=%s created=%d ms; the API server lists the nodes in"
              + " %d ms (%d MB of %s, first byte at %d ms); serve ready %d ms after start (%s"
              + " after the API server's first answer; its own %s); peak heap after GC %d MiB; RSS %d MiB at ready, %d MiB after %d admissions (%s, %d"
              + " ms: anon %d MiB, file %d MiB), peak RSS %d MiB; %d/%d injected; %d node status changes (%.1f/s)%n",
          nodes,
          (heap[0].isEmpty() ? "launcher default" : heapSpec.strip()) + label,
          createdMillis,
          floor.millis(),
          floor.bytes() / 1_000_000,
          floor.contentType(),
          floor.firstByteMillis(),
          ready.toMillis(),
          afterFirstAnswer,
          serve
              .log()
              .substring(logFrom)
              .lines()
              .filter(l -> l.contains("listed api/v1/nodes"))
              .map(l -> l.substring(l.indexOf("listed api/v1/nodes")))
              .findFirst()
              .orElse("list line not logged"),
          peakHeap,
          rssReady / 1024,
          status(serve.pid(), "VmRSS") / 1024,
          BURST,
          BURST_VIA,
          burstMillis,
          status(serve.pid(), "RssAnon") / 1024,
          status(serve.pid(), "RssFile") / 1024,
          status(serve.pid(), "VmHWM") / 1024,
          injected,
          BURST,
          churn.changes(),
          churn.perSecond());
    }
  }

  /** How long the API server took to answer a list, and how much it sent. */
  record ListTime(long millis, long firstByteMillis, long bytes, String contentType) {}

  /**
   * Times {@code GET /api/v1/nodes?resourceVersion=0} in protobuf, else JSON (what serve's first
   * list asks), reading and dropping the body.
   */
  private static ListTime timeTheNodeList() throws IOException {
    var http = admin.getHttpClient();
    var request =
        http.newHttpRequestBuilder()
            .uri(
                admin.getMasterUrl().toString().replaceAll("/$", "")
                    + "/api/v1/nodes?resourceVersion=0")
            .header("Accept", "application/vnd.kubernetes.protobuf, application/json")
            .build();
    long start = System.nanoTime();
    try {
      var response = http.sendAsync(request, java.io.InputStream.class).get();
      assertThat(response.code()).as("the node list's status").isEqualTo(200);
      long bytes = 0;
      long firstByte = -1;
      byte[] buffer = new byte[1 << 16];
      try (var body = response.body()) {
        for (int n; (n = body.read(buffer)) >= 0; ) {
          if (firstByte < 0 && n > 0) {
            firstByte = System.nanoTime();
          }
          bytes += n;
        }
      }
      long end = System.nanoTime();
      return new ListTime(
          (end - start) / 1_000_000,
          (firstByte - start) / 1_000_000,
          bytes,
          response.header("Content-Type"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while listing nodes", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException("listing nodes: " + e.getCause(), e.getCause());
    }
  }

  /**
   * Node status writes per second while serve starts and admits the burst, as a large cluster's
   * kubelets make them (the issue measured about 14 a second): each changes a Ready condition's
   * heartbeat, which the informer decodes and the view must ignore. 0 turns it off.
   */
  static final double CHURN_PER_SECOND =
      Double.parseDouble(System.getProperty("large.churn", "14"));

  /** Patches node statuses round the cluster at a steady rate, on its own thread. */
  static final class NodeChurn implements AutoCloseable {
    private final double perSecond;
    private final java.util.concurrent.atomic.AtomicLong changes =
        new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.ScheduledExecutorService timer =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    // writes take longer than the period on a loaded plane: they overlap, on a few connections
    private final java.util.concurrent.ExecutorService writers =
        java.util.concurrent.Executors.newFixedThreadPool(8);
    private long startedAt;
    private int next;

    NodeChurn(double perSecond) {
      this.perSecond = perSecond;
    }

    void start() {
      startedAt = System.nanoTime();
      if (perSecond <= 0) {
        return;
      }
      long period = Math.max(1, Math.round(1_000_000 / perSecond));
      timer.scheduleAtFixedRate(
          () -> {
            String node = RealisticNodes.name(next);
            next = (next + 7919) % nodes;
            writers.execute(() -> one(node));
          },
          0,
          period,
          java.util.concurrent.TimeUnit.MICROSECONDS);
    }

    private void one(String node) {
      try {
        admin
            .nodes()
            .withName(node)
            .subresource("status")
            .patch(
                io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                    io.fabric8.kubernetes.client.dsl.base.PatchType.STRATEGIC_MERGE),
                "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
                    + "\"reason\":\"KubeletReady\",\"lastHeartbeatTime\":\""
                    + java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                    + "\"}]}}");
        changes.incrementAndGet();
      } catch (RuntimeException e) {
        // a write the API server refused under load is one heartbeat fewer, not a failed run
      }
    }

    long changes() {
      return changes.get();
    }

    double perSecond() {
      double seconds = (System.nanoTime() - startedAt) / 1e9;
      return seconds <= 0 ? 0 : changes.get() / seconds;
    }

    @Override
    public void close() {
      timer.shutdownNow();
      writers.shutdownNow();
    }
  }

  /** The pods of the deployment the webhook injected: they carry the proxy. */
  static long injected(String deployment) {
    return admin.pods().inNamespace("shop").withLabel("app", deployment).list().getItems().stream()
        .filter(
            p ->
                java.util.stream.Stream.concat(
                        p.getSpec().getContainers().stream(),
                        p.getSpec().getInitContainers() == null
                            ? java.util.stream.Stream.empty()
                            : p.getSpec().getInitContainers().stream())
                    .anyMatch(c -> c.getName().equals("linkerd-proxy")))
        .count();
  }

  @Test
  @Order(2)
  void explainStreamsTheClusterWithTheLaunchersDefaults() throws Exception {
    Cli.Result explain =
        PLANE.meshInjector(
            "explain", Duration.ofSeconds(90), "explain", "-n", "shop", "-o", "json");
    assertThat(explain.exit()).as(explain.err()).isIn(0, 3);
    assertThat(explain.err()).doesNotContain("OutOfMemoryError").doesNotContain("out of memory");
    System.out.printf(
        "LargeClusterIT: explain -n shop over %d nodes took %d ms, exit %d%n",
        NODES, explain.took().toMillis(), explain.exit());
  }

  /**
   * {@code check} reads the cluster in one paged list per kind, never per node. In CI it only has
   * to finish and judge every node; as a benchmark, {@code -Dlarge.checkSeconds=10} also holds it
   * to that many seconds (the bound at 5,000 Nodes).
   */
  @Test
  @Order(3)
  void checkJudgesEveryNodeFromOneListPerKind() throws Exception {
    Cli.Result check = PLANE.meshInjector("check", Duration.ofSeconds(90), "check", "-o", "json");
    // no replica runs here, so the install's checks fail (status 5); the node checks still run
    assertThat(check.exit()).as(check.err()).isIn(0, 5);
    assertThat(check.out()).contains(NODES + " nodes");
    System.out.printf(
        "LargeClusterIT: check over %d nodes took %d ms, exit %d%n",
        NODES, check.took().toMillis(), check.exit());
    Integer limit = Integer.getInteger("large.checkSeconds");
    if (limit != null) {
      assertThat(check.took()).isLessThan(Duration.ofSeconds(limit));
    }
  }

  @Test
  @Order(4)
  void runningOutOfMemoryIsNeverTheRefusalStatus() throws Exception {
    Path dir = PLANE.dir("oom");
    ProcessBuilder pb =
        new ProcessBuilder(Serve.launcher().toString(), "explain", "-n", "shop")
            .redirectOutput(dir.resolve("out").toFile())
            .redirectError(dir.resolve("err").toFile());
    pb.environment().put("KUBECONFIG", PLANE.plane().adminKubeconfigFile().toString());
    // small enough that the cluster read cannot finish, large enough for the JVM to start
    pb.environment().put("MESH_INJECTOR_MAX_HEAP", "12m");
    // the JDK's AOT cache needs more than that to start the VM at all (its own error, status 1)
    pb.environment().put("MESH_INJECTOR_AOT_CACHE", dir.resolve("no-aot-cache").toString());
    Process p = pb.start();
    assertThat(p.waitFor(90, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    String err = Files.readString(dir.resolve("err"));
    assertThat(p.exitValue()).as(err).isEqualTo(4);
    assertThat(err).contains("out of memory");
    assertThat(Files.readString(dir.resolve("out"))).doesNotContain("OutOfMemoryError");
  }

  /** The launcher's first log line about the API server: its first answer, at this time of day. */
  static final Pattern FIRST_ANSWER =
      Pattern.compile("^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*API server \\d", Pattern.MULTILINE);

  /**
   * How long before {@code readyAt} (local time, as serve logs it) serve logged the API server's
   * version, its first answer; "?" when the log has no such line.
   */
  static String afterFirstAnswer(String log, LocalTime readyAt) {
    Matcher m = FIRST_ANSWER.matcher(log);
    if (!m.find()) {
      return "?";
    }
    long millis = Duration.between(LocalTime.parse(m.group(1)), readyAt).toMillis();
    return (millis < 0 ? millis + 86_400_000 : millis) + " ms";
  }

  /** {@code 384Mi} or {@code 1Gi} as bytes. */
  static long bytes(String quantity) {
    long n = Long.parseLong(quantity.replaceAll("[^0-9]", ""));
    return quantity.endsWith("Gi") ? n << 30 : n << 20;
  }

  /**
   * The most the heap held after a collection, from the JVM's own GC log: what the process needed
   * at its peak (before a collection the heap is always nearly full, which says nothing).
   */
  static long peakHeapMiB(Path gcLog) throws IOException {
    long peak = 0;
    for (String line : Files.readAllLines(gcLog)) {
      Matcher m = GC.matcher(line);
      if (m.find()) {
        peak = Math.max(peak, Long.parseLong(m.group(2)));
      }
    }
    return peak;
  }

  static long status(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  /**
   * {@link #BURST} pods of one Deployment, created by the ReplicaSet controller through the API
   * server, which calls the webhook for each; returns when all exist.
   */
  static long burstThroughTheApiServer(String deployment) {
    long start = System.nanoTime();
    admin.apps().deployments().inNamespace("shop").withName(deployment).scale(BURST);
    Await.until(
        BURST + " pods of shop/" + deployment,
        Duration.ofMinutes(5),
        () ->
            admin.pods().inNamespace("shop").withLabel("app", deployment).list().getItems().size()
                >= BURST);
    return Duration.ofNanos(System.nanoTime() - start).toMillis();
  }

  /** {@link #BURST} admissions of the example pod, on one HTTP/2 connection. */
  static long burst(Serve serve) throws Exception {
    int count = BURST;
    String review =
        Files.readString(
            Path.of(System.getProperty("project.root", ".."), "examples/admission-review.json"));
    HttpClient http =
        HttpClient.newBuilder()
            .sslContext(Tls.trustAll())
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(serve.url()))
                  .header("Content-Type", "application/json")
                  .timeout(Duration.ofSeconds(10))
                  .POST(HttpRequest.BodyPublishers.ofString(review))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
    }
    return Duration.ofNanos(System.nanoTime() - start).toMillis();
  }
}
