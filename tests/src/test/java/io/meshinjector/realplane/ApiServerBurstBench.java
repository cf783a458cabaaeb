package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.ApiServerMetrics;
import io.meshinjector.plane.ApiServerMetrics.Histogram;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.LoadBalancer;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.Workloads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The webhook as the API server sees it, under pod bursts: Deployments of many replicas created one
 * after another, with the chart's own webhook configuration pointed by URL at one {@code serve}, at
 * three behind HAProxy, and at the one-label Java Operator SDK peer, in one run. Before and after
 * each burst it reads the API server's {@code
 * apiserver_admission_webhook_admission_duration_seconds} and {@code
 * apiserver_admission_webhook_request_total} for the configuration's entries, and prints per target
 * the calls per pod, the mean and the p99 bucket of the cold burst (the first after the target
 * started) and of the warm ones.
 *
 * <p>A benchmark, run on request only ({@code tests/bench/apiserver-burst.sh}, which sets {@code
 * burst.run}); its settings are system properties:
 *
 * <ul>
 *   <li>{@code burst.sizes} (200,1000): replicas per burst; each size starts every target afresh
 *   <li>{@code burst.rounds} (3): bursts per size, the first cold
 *   <li>{@code burst.targets} (one,three,peer): also peer-inject, the peer adding what
 *       mesh-injector adds
 *   <li>{@code burst.aot} (on): off runs {@code serve} without the JDK's AOT cache
 *   <li>{@code burst.jfr} (false): true records a JFR file per {@code serve} process
 *   <li>{@code burst.nodes} (6), {@code burst.out} (target/burst)
 * </ul>
 */
@ResourceLock(SharedPlane.PLANE_LANE)
@EnabledIfSystemProperty(named = "burst.run", matches = "true")
class ApiServerBurstBench {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String SHOP = "burst";
  static final String ENTRIES = ".mesh-injector.io";

  final List<Integer> sizes = ints(System.getProperty("burst.sizes", "200,1000"));
  final int rounds = Integer.getInteger("burst.rounds", 3);
  final List<String> targets =
      Arrays.asList(System.getProperty("burst.targets", "one,three,peer").split(","));
  final boolean aot = !"off".equals(System.getProperty("burst.aot", "on"));
  final boolean jfr = Boolean.getBoolean("burst.jfr");
  final int nodes = Integer.getInteger("burst.nodes", 6);
  final Path out =
      Path.of(System.getProperty("burst.out", "target/burst")).toAbsolutePath().normalize();

  KubernetesClient admin;
  Release release;
  int deployments;
  final List<String> report = new ArrayList<>();

  static List<Integer> ints(String csv) {
    return Arrays.stream(csv.split(",")).map(String::trim).map(Integer::valueOf).toList();
  }

  @Test
  void bursts() throws Exception {
    KubePlane plane = PLANE.plane();
    admin = plane.admin();
    Files.createDirectories(out);
    for (int i = 1; i <= nodes; i++) {
      FakeNodes.create(
          admin,
          "rhel-" + i,
          FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of("pool", "rhel")));
    }
    release = Release.install(plane, "mi", NS, Release.urlValue(KubePlane.freePort()));
    Workloads.namespace(admin, SHOP, Map.of("inject", "enabled"), Map.of());
    Path peerJar = peerJar();
    say(
        "burst: sizes %s, %d bursts each (the first cold), targets %s, nodes %d, AOT cache %s, JFR %s",
        sizes, rounds, targets, nodes, aot ? "on (" + aotCache() + ")" : "off", jfr);
    say(
        "%-11s %6s %-5s %5s %6s %9s %9s %10s %8s",
        "target", "pods", "burst", "calls", "/pod", "requests", "mean ms", "p99 bucket", "wall s");
    for (int size : sizes) {
      for (String target : targets) {
        switch (target) {
          case "one" -> one(size);
          case "three" -> three(size);
          case "peer" -> peer("peer", size, peerJar);
          case "peer-inject" -> peer("peer-inject", size, peerJar);
          default -> throw new IllegalArgumentException("unknown burst target " + target);
        }
      }
    }
    Files.write(out.resolve("results.txt"), report);
    say("burst: results in %s", out.resolve("results.txt"));
  }

  private void one(int size) throws Exception {
    int port = KubePlane.freePort();
    release.upgrade(Release.urlValue(port));
    Serve serve = replica("one-" + size, port);
    try {
      serve.start().awaitReady(Duration.ofSeconds(90));
      Workloads.awaitInjectionLabel(admin, SHOP, Duration.ofSeconds(30));
      run("one", size);
    } finally {
      serve.stop();
    }
  }

  private void three(int size) throws Exception {
    Path haproxy =
        LoadBalancer.haproxy()
            .orElseThrow(() -> new IllegalStateException("three needs haproxy on the PATH"));
    int port = KubePlane.freePort();
    release.upgrade(Release.urlValue(port));
    List<Serve> replicas = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    LoadBalancer balancer = null;
    try {
      for (int i = 0; i < 3; i++) {
        Serve serve = replica("three-" + size + "-" + i, KubePlane.freePort());
        replicas.add(serve);
        // one after the other, as a rollout brings them up
        serve.start().awaitReady(Duration.ofSeconds(90));
        ports.add(serve.port());
      }
      balancer = new LoadBalancer(haproxy, PLANE.dir("lb-" + size), port, ports);
      run("three", size);
    } finally {
      if (balancer != null) {
        balancer.close();
      }
      replicas.forEach(Serve::stop);
    }
  }

  /**
   * The JOSDK peer; as {@code peer-inject} it also adds the parts mesh-injector adds, so the API
   * server applies a patch of the same size for both.
   */
  private void peer(String target, int size, Path jar) throws Exception {
    int port = KubePlane.freePort();
    release.upgrade(Release.urlValue(port));
    Path dir = PLANE.dir(target + "-" + size);
    Path tls = release.tlsDir(dir.resolve("tls"));
    String java = launcherJava();
    Process process =
        new ProcessBuilder(
                java,
                "-jar",
                jar.toString(),
                "--server.port=" + port,
                "--server.http2.enabled=true",
                "--server.ssl.certificate=file:" + tls.resolve("tls.crt"),
                "--server.ssl.certificate-private-key=file:" + tls.resolve("tls.key"),
                "--management.server.port=" + KubePlane.freePort(),
                "--spring.main.banner-mode=off",
                "--peer.inject=" + target.equals("peer-inject"))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("peer.log").toFile())
            .start();
    try {
      Serve probe = new Serve(target, dir, NS, dir, tls, dir, port);
      Await.until(
          "the peer ready",
          Duration.ofSeconds(90),
          () -> {
            if (!process.isAlive()) {
              throw new AssertionError("the peer exited: " + KubePlane.tail(log(dir), 40));
            }
            return probe.ready();
          });
      run(target, size);
    } finally {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  private static String log(Path dir) {
    try {
      return Files.readString(dir.resolve("peer.log"));
    } catch (IOException e) {
      return "";
    }
  }

  private Serve replica(String id, int port) throws IOException {
    Serve serve = release.replica(id, PLANE.dir(id), port);
    if (!aot) {
      // the launcher uses the cache only when the file is there
      serve.withEnv("MESH_INJECTOR_AOT_CACHE", PLANE.dir(id).resolve("no.aot").toString());
    }
    if (jfr) {
      serve.withEnv(
          "MESH_INJECTOR_JAVA_OPTS",
          "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
              + out.resolve(id + ".jfr"));
    }
    return serve;
  }

  /** The cold burst, then the warm ones, each a Deployment of {@code size} replicas. */
  private void run(String target, int size) {
    Histogram warm = null;
    double warmCalls = 0;
    int warmPods = 0;
    double warmP99 = 0;
    for (int round = 0; round < rounds; round++) {
      String name = "b" + (++deployments);
      Histogram before = ApiServerMetrics.read(admin, ENTRIES);
      double requestsBefore = ApiServerMetrics.requests(admin, ENTRIES);
      long start = System.nanoTime();
      admin
          .apps()
          .deployments()
          .inNamespace(SHOP)
          .resource(
              Workloads.deployment(name, size, Map.of(), Workloads.appSpec(Map.of("pool", "rhel"))))
          .create();
      Await.until(
          size + " pods of " + name,
          Duration.ofSeconds(60 + size / 2),
          () ->
              admin.pods().inNamespace(SHOP).withLabel("app", name).list().getItems().size()
                  >= size);
      double wall = (System.nanoTime() - start) / 1e9;
      // the last pods' calls are counted as their creations return
      Histogram burst = ApiServerMetrics.read(admin, ENTRIES).minus(before);
      double requests = ApiServerMetrics.requests(admin, ENTRIES) - requestsBefore;
      say(
          "%-11s %6d %-5s %5.0f %6.2f %9.0f %9.1f %10s %8.1f",
          target,
          size,
          round == 0 ? "cold" : "warm" + round,
          burst.count(),
          burst.count() / size,
          requests,
          burst.mean() * 1000,
          bucket(burst.bucketOf(0.99)),
          wall);
      if (round > 0) {
        warm = warm == null ? burst : sum(warm, burst);
        warmCalls += burst.count();
        warmPods += size;
        warmP99 = Math.max(warmP99, burst.bucketOf(0.99));
      }
      admin.apps().deployments().inNamespace(SHOP).withName(name).delete();
      assertThat(burst.count()).as("the API server counted calls to " + target).isPositive();
    }
    if (warm != null) {
      say(
          "%-11s %6d %-5s %5.0f %6.2f %9s %9.1f %10s %8s   (warm bursts together; the highest p99"
              + " bucket)",
          target,
          size,
          "warm",
          warmCalls,
          warmCalls / warmPods,
          "",
          warm.mean() * 1000,
          bucket(warmP99),
          "");
    }
  }

  private static Histogram sum(Histogram a, Histogram b) {
    Map<Double, Double> buckets = new java.util.TreeMap<>(a.buckets());
    b.buckets().forEach((le, v) -> buckets.merge(le, v, Double::sum));
    return new Histogram(a.count() + b.count(), a.sum() + b.sum(), buckets);
  }

  private static String bucket(double seconds) {
    return Double.isInfinite(seconds)
        ? "+Inf"
        : String.format(Locale.ROOT, "%.0f ms", seconds * 1000);
  }

  private void say(String format, Object... args) {
    String line = String.format(Locale.ROOT, format, args);
    System.out.println(line);
    report.add(line);
  }

  private static Path root() {
    return Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
  }

  private static Path peerJar() {
    Path jar = root().resolve("tests/bench/josdk-peer/target/josdk-peer.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "no "
              + jar
              + ": build it with ./mvnw -B -q -DskipTests -f tests/bench/josdk-peer/pom.xml package"
              + " (tests/bench/apiserver-burst.sh does)");
    }
    return jar;
  }

  /** The JVM the launcher runs {@code serve} on, so the peer runs on the same. */
  private static String launcherJava() throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(Serve.launcher().toString()).redirectErrorStream(true);
    pb.environment().put("MESH_INJECTOR_DRY_RUN", "1");
    Process p = pb.start();
    String line = new String(p.getInputStream().readAllBytes()).trim();
    p.waitFor();
    return line.split("\\s+")[0];
  }

  private static String aotCache() {
    Path cache = root().resolve("webhook/target/app/mesh-injector.aot");
    Path other = root().resolve("webhook/target/mesh-injector.aot");
    return Files.isRegularFile(cache)
        ? cache.toString()
        : Files.isRegularFile(other) ? other.toString() : "none built: serve runs without";
  }
}
