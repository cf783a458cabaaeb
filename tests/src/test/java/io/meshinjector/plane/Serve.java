package io.meshinjector.plane;

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
import java.util.concurrent.TimeUnit;

/**
 * One webhook replica: {@code bin/mesh-injector serve} as the chart's Deployment runs it (its
 * config file, its TLS files, {@code POD_NAMESPACE}, {@code POD_NAME}), on a kubeconfig holding a
 * token of the chart's ServiceAccount, never the admin's.
 */
public final class Serve implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .sslContext(Tls.trustAll())
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private final String id;
  private final Path kubeconfig;
  private final Path log;
  private final String namespace;
  private final int port;
  private final int metricsPort;
  private Path config;
  private Path tlsDir;
  private final Map<String, String> extraEnv = new java.util.HashMap<>();
  private Process process;
  private long startedAt;

  public Serve(
      String id,
      Path kubeconfig,
      String namespace,
      Path config,
      Path tlsDir,
      Path logDir,
      int port) {
    this.id = id;
    this.kubeconfig = kubeconfig;
    this.namespace = namespace;
    this.config = config;
    this.tlsDir = tlsDir;
    this.port = port;
    this.metricsPort = KubePlane.freePort();
    this.log = logDir.resolve(id + ".log");
  }

  public static Path launcher() {
    Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    return root.resolve("bin/mesh-injector");
  }

  public int port() {
    return port;
  }

  public String url() {
    return "https://127.0.0.1:" + port + "/mutate";
  }

  /** An environment variable for the next start, e.g. the launcher's MESH_INJECTOR_MAX_HEAP. */
  public Serve withEnv(String name, String value) {
    extraEnv.put(name, value);
    return this;
  }

  /** The JVM's process id (the launcher execs it). */
  public long pid() {
    return process.pid();
  }

  /** Files for the next start, as a rolled-out pod would mount them. */
  public void remount(Path newConfig, Path newTlsDir) {
    this.config = newConfig;
    this.tlsDir = newTlsDir;
  }

  public synchronized Serve start() throws IOException {
    List<String> command = new ArrayList<>(List.of(launcher().toString(), "serve"));
    command.addAll(
        List.of(
            "--config", config.toString(),
            "--tls-dir", tlsDir.toString(),
            "--port", String.valueOf(port),
            "--metrics-port", String.valueOf(metricsPort)));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Map<String, String> env = pb.environment();
    env.remove("KUBERNETES_SERVICE_HOST");
    env.put("KUBECONFIG", kubeconfig.toString());
    env.put("POD_NAMESPACE", namespace);
    env.put("POD_NAME", id);
    env.putAll(extraEnv);
    startedAt = System.nanoTime();
    process = pb.start();
    return this;
  }

  public boolean running() {
    return process != null && process.isAlive();
  }

  public boolean ready() {
    return get("https://127.0.0.1:" + port + "/readyz") == 200;
  }

  /** Waits for {@code /readyz} to answer 200; returns how long after the start that was. */
  public Duration awaitReady(Duration limit) {
    Await.until(
        id + " ready",
        limit,
        () -> {
          if (!running()) {
            throw new AssertionError(id + " exited: " + KubePlane.tail(log(), 40));
          }
          return ready();
        },
        () -> "its log ends:\n" + KubePlane.tail(log(), 40));
    return Duration.ofNanos(System.nanoTime() - startedAt);
  }

  /** The Prometheus text of the metrics port. */
  public String metrics() {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** One sample's value, e.g. {@code mesh_injector_cluster_source_synced{source="cni-pods"}}. */
  public double metric(String series) {
    for (String line : metrics().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return Double.NaN;
  }

  private static int get(String url) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  public String log() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** SIGTERM, as the kubelet stops a pod; waits for the process to end. */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(40, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process = null;
  }

  /**
   * SIGKILL, as a crashed or OOM-killed replica ends: no drain, no lease released. A test's
   * teardown ends its replicas this way, since it reads nothing of their shutdown and a graceful
   * stop waits out the chart's drain period (15 s by default) for each.
   */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** Teardown: {@link #kill}. */
  @Override
  public void close() {
    kill();
  }
}
