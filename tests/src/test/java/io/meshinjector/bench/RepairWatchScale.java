package io.meshinjector.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.ServiceAccounts;
import io.meshinjector.plane.Workloads;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * What one node's repair costs as the cluster grows (docs/benchmarks.md, "The repair's watch"): a
 * real control plane (no kubelet), the chart installed, {@code node-a} with {@value #OWN} pods, and
 * more and more pods bound to other nodes. At each size the probe runs as the DaemonSet runs it
 * ({@code bin/mesh-injector probe --repair report}, the chart's probe ServiceAccount, a token bound
 * to a pod on node-a), and this reads: the pods its watch holds and the notifications it received
 * (its own metrics), the bytes the API server sent for its LIST ({@code
 * apiserver_response_sizes_sum} for pod LISTs), and its heap after a full GC and RSS; then {@value
 * #CHURN} pods are created on other nodes and {@value #OWN_CHURN} on node-a, and the notifications
 * counted again.
 *
 * <p>Run: {@code ./mvnw -B -q -o -pl tests -am package -DskipTests} then {@code java -cp "$(cat
 * tests/target/bench.classpath):tests/target/test-classes" io.meshinjector.bench.RepairWatchScale 0
 * 5000 20000} (docs/benchmarks.md has the exact commands).
 */
public final class RepairWatchScale {
  static final int OWN = 30;
  static final int CHURN = 1000;
  static final int OWN_CHURN = 10;
  static final int OTHER_NODES = 50;
  static final String NS = "mesh-injector";

  private RepairWatchScale() {}

  public static void main(String[] args) throws Exception {
    Path shared =
        KubePlane.sharedBinaries().orElseThrow(() -> new IllegalStateException("no ../shared"));
    Path work = Path.of("tests/target/repair-watch-scale").toAbsolutePath();
    try (KubePlane plane = KubePlane.start(shared, work)) {
      KubernetesClient admin = plane.admin();
      FakeNodes.create(admin, "node-a", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
      for (int i = 0; i < OTHER_NODES; i++) {
        FakeNodes.create(
            admin, "other-" + i, FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
      }
      Release release = Release.install(plane, "mi", NS, Map.of("probe.repair.mode", "report"));
      String sa = release.fullname() + "-probe";
      Pod identity =
          admin.pods().inNamespace(NS).resource(pod("probe-node-a", "node-a", sa)).create();
      Path kubeconfig = ServiceAccounts.kubeconfigBoundTo(plane, NS, sa, identity);
      Workloads.namespace(admin, "load", Map.of(), Map.of());
      create(admin, "own", OWN, i -> "node-a");
      int others = 0;
      int churnRound = 0;
      System.out.println(
          "| pods in the cluster | pods on node-a | watched | notifications at start | LIST bytes"
              + " | heap after GC | RSS | notifications for +"
              + CHURN
              + " elsewhere, +"
              + OWN_CHURN
              + " on node-a |");
      System.out.println("|---|---|---|---|---|---|---|---|");
      for (String arg : args) {
        if (arg.equals("off")) {
          baseline(kubeconfig, work);
          continue;
        }
        int target = Integer.parseInt(arg);
        create(admin, "other-" + others, target - others, i -> "other-" + (i % OTHER_NODES));
        others = Math.max(others, target);
        double listBytesBefore = listBytes(admin);
        int port = KubePlane.freePort();
        Path log = Files.createDirectories(work).resolve("probe-" + target + ".log");
        ProcessBuilder pb =
            new ProcessBuilder(
                    Serve.launcher().toString(),
                    "probe",
                    "--node",
                    "node-a",
                    "--host-root",
                    "/",
                    "--interval",
                    "1h",
                    "--repair",
                    "report",
                    "--metrics-port",
                    String.valueOf(port))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().remove("KUBERNETES_SERVICE_HOST");
        pb.environment().put("KUBECONFIG", kubeconfig.toString());
        pb.environment().put("MESH_INJECTOR_JAVA_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        Process probe = pb.start();
        try {
          int own = OWN + 1 + churnRound * OWN_CHURN;
          await(() -> metric(port, "mesh_injector_repair_watched_pods") >= own, log, port);
          Thread.sleep(3000);
          double watched = metric(port, "mesh_injector_repair_watched_pods");
          double atStart = metric(port, "mesh_injector_repair_pod_notifications_total");
          double listed = listBytes(admin) - listBytesBefore;
          String heap = heapAfterGc(probe.pid());
          long rss = rssKib(probe.pid());
          create(admin, "churn-" + churnRound, CHURN, i -> "other-" + (i % OTHER_NODES));
          create(admin, "own-churn-" + churnRound, OWN_CHURN, i -> "node-a");
          churnRound++;
          int ownNow = OWN + 1 + churnRound * OWN_CHURN;
          await(() -> metric(port, "mesh_injector_repair_watched_pods") >= ownNow, log, port);
          Thread.sleep(3000);
          double churned = metric(port, "mesh_injector_repair_pod_notifications_total") - atStart;
          others += CHURN;
          System.out.printf(
              "| %,d | %d | %.0f | %.0f | %,.0f | %s | %,d KiB | %.0f |%n",
              target + OWN + 1 + (churnRound - 1) * (OWN_CHURN),
              own,
              watched,
              atStart,
              listed,
              heap,
              rss,
              churned);
        } finally {
          probe.destroy();
          probe.waitFor(20, TimeUnit.SECONDS);
        }
      }
    }
  }

  /** The probe as it was before the repair: {@code --repair off}, no watch, no metrics port. */
  static void baseline(Path kubeconfig, Path work) throws Exception {
    Path log = Files.createDirectories(work).resolve("probe-off.log");
    ProcessBuilder pb =
        new ProcessBuilder(
                Serve.launcher().toString(),
                "probe",
                "--node",
                "node-a",
                "--host-root",
                "/",
                "--interval",
                "1h",
                "--repair",
                "off")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().remove("KUBERNETES_SERVICE_HOST");
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("MESH_INJECTOR_JAVA_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    Process probe = pb.start();
    try {
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (!Files.readString(log).contains("wrote NodeCapability")) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the probe wrote nothing:\n" + Files.readString(log));
        }
        Thread.sleep(200);
      }
      Thread.sleep(3000);
      System.out.printf(
          "| --repair off (before the repair) | | | | | %s | %,d KiB | |%n",
          heapAfterGc(probe.pid()), rssKib(probe.pid()));
    } finally {
      probe.destroy();
      probe.waitFor(20, TimeUnit.SECONDS);
    }
  }

  static Pod pod(String name, String node, String sa) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("app", "load")
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withServiceAccountName(sa)
        .addNewContainer()
        .withName("app")
        .withImage("registry.example/app:1.0")
        .endContainer()
        .endSpec()
        .build();
  }

  static void create(
      KubernetesClient admin, String prefix, int count, java.util.function.IntFunction<String> node)
      throws Exception {
    if (count <= 0) {
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int n = i;
      futures.add(
          pool.submit(
              () ->
                  admin
                      .pods()
                      .inNamespace("load")
                      .resource(pod(prefix + "-" + n, node.apply(n), null))
                      .create()));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
  }

  static double listBytes(KubernetesClient admin) {
    double sum = 0;
    for (String line : admin.raw("/metrics").split("\n")) {
      if (line.startsWith("apiserver_response_sizes_sum{")
          && line.contains("resource=\"pods\"")
          && line.contains("verb=\"LIST\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  static double metric(int port, String name) {
    try {
      String body =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      for (String line : body.split("\n")) {
        if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
          return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  static void await(java.util.function.BooleanSupplier condition, Path log, int port)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the probe's watch did not sync:\n" + Files.readString(log));
      }
      Thread.sleep(200);
    }
  }

  /**
   * {@code jcmd PID GC.run}, then the used heap {@code GC.heap_info} reports: the generations'
   * "used" figures summed (Metaspace and class space, written "used N, committed", apart).
   */
  static String heapAfterGc(long pid) throws Exception {
    run("jcmd", String.valueOf(pid), "GC.run");
    String info = run("jcmd", String.valueOf(pid), "GC.heap_info");
    long usedKib = 0;
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("total \\d+K, used (\\d+)K").matcher(info);
    while (m.find()) {
      usedKib += Long.parseLong(m.group(1));
    }
    return usedKib == 0 ? info.replace('\n', ' ') : String.format("%,d KiB", usedKib);
  }

  static long rssKib(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor(30, TimeUnit.SECONDS);
    return out;
  }
}
