package io.meshinjector.plane;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What a Service and kube-proxy give the API server in a cluster: one address for several replicas,
 * sending connections only to those whose {@code /readyz} answers 200. HAProxy in TCP mode (TLS
 * passes through to the replicas), from Debian's package.
 */
public final class LoadBalancer implements AutoCloseable {
  private final int port;
  private final Process process;
  private final Path log;

  public static Optional<Path> haproxy() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, "haproxy");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    for (Path p : List.of(Path.of("/usr/sbin/haproxy"), Path.of("/usr/local/sbin/haproxy"))) {
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  public LoadBalancer(Path haproxy, Path dir, int port, List<Integer> backends) throws IOException {
    this.port = port;
    StringBuilder cfg =
        new StringBuilder(
            """
            global
              maxconn 2000
            defaults
              mode tcp
              timeout connect 2s
              timeout client 90s
              timeout server 90s
              timeout check 2s
            frontend webhook
              bind 127.0.0.1:%d
              default_backend replicas
            backend replicas
              balance roundrobin
              option httpchk GET /readyz
              http-check expect status 200
            """
                .formatted(port));
    for (int i = 0; i < backends.size(); i++) {
      cfg.append(
          "  server r%d 127.0.0.1:%d check check-ssl verify none inter 250ms fall 1 rise 1\n"
              .formatted(i, backends.get(i)));
    }
    Path file = KubePlane.write(dir.resolve("haproxy-" + port + ".cfg"), cfg.toString());
    log = dir.resolve("haproxy-" + port + ".log");
    process =
        new ProcessBuilder(haproxy.toString(), "-db", "-f", file.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Await.until(
        "haproxy listening on " + port,
        Duration.ofSeconds(10),
        () -> {
          if (!process.isAlive()) {
            throw new AssertionError("haproxy exited: " + read(log));
          }
          try (var s = new java.net.Socket("127.0.0.1", port)) {
            return true;
          } catch (IOException e) {
            return false;
          }
        });
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return e.toString();
    }
  }

  public String url() {
    return "https://127.0.0.1:" + port + "/mutate";
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
