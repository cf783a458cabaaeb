package io.meshinjector.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.meshinjector.plane.Await;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.Tls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runs the launcher the way the image does (see the Dockerfile and the chart): the image's layout
 * ({@code /app/bin/mesh-injector}, {@code /app/lib/app/}), as uid 65532 with no home and a
 * read-only working directory, so only world-writable {@code /tmp} can be written, with the TLS
 * files in a read-only folder as the chart mounts them; and gets {@code /readyz} 200. Then sends it
 * SIGTERM, as the kubelet does, and checks the drain: {@code /readyz} 503 while admissions are
 * still answered, and an exit with the JVM's SIGTERM status once it is over. The time to ready is
 * recorded in {@code target/image-launch.txt}, not asserted: this machine's speed varies too much
 * for that (start-up is measured by tests/bench/startup.sh; docs/benchmarks.md).
 */
class ImageLaunchIT {
  private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).normalize();
  private static final String UID = "65532";
  private static final Duration READY_LIMIT = Duration.ofSeconds(180);

  @Test
  void theLauncherServesAsTheImageRunsIt() throws Exception {
    assumeTrue(
        System.getProperty("os.name").startsWith("Linux"), "the image's runtime is Linux only");
    Path extracted = ROOT.resolve("webhook/target/app");
    assertThat(extracted.resolve("mesh-injector.jar"))
        .as("the webhook module extracts the runnable jar when it packages it")
        .exists();
    List<String> asImageUser = asImageUser();

    // the image's layout under a root-owned folder in /tmp, read-only once written
    Path image = Files.createTempDirectory("mesh-injector-image");
    try {
      Path app = image.resolve("app");
      copyTree(extracted, app.resolve("lib/app"), "mesh-injector.aot");
      Files.createDirectories(app.resolve("bin"));
      for (String f : List.of("mesh-injector", "jvm.options")) {
        Files.copy(ROOT.resolve("bin").resolve(f), app.resolve("bin").resolve(f));
      }
      Files.copy(ROOT.resolve("examples/cluster.yaml"), app.resolve("cluster.yaml"));
      Path tls = image.resolve("tls");
      Process certs =
          new ProcessBuilder(
                  app.resolve("bin/mesh-injector").toString(),
                  "certs",
                  "--out",
                  tls.toString(),
                  "--dns",
                  "localhost")
              .redirectErrorStream(true)
              .start();
      String certsOut = new String(certs.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(certs.waitFor()).as(certsOut).isZero();
      readOnlyForAll(image);

      int port = KubePlane.freePort();
      List<String> command = new ArrayList<>(asImageUser);
      command.addAll(
          List.of(
              app.resolve("bin/mesh-injector").toString(),
              "serve",
              "--cluster",
              app.resolve("cluster.yaml").toString(),
              "--tls-dir",
              tls.toString(),
              "--port",
              String.valueOf(port),
              "--metrics-port",
              String.valueOf(KubePlane.freePort())));
      Path log = Files.createTempFile("mesh-injector-image", ".log");
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(app.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder.environment().put("HOME", "/nonexistent");
      builder.environment().remove("MESH_INJECTOR_JAR");
      Instant start = Instant.now();
      Process server = builder.start();
      try {
        HttpClient client =
            HttpClient.newBuilder().sslContext(Tls.trusting(tls.resolve("ca.crt"))).build();
        Duration ready = null;
        while (ready == null) {
          assertThat(server.isAlive()).as(Files.readString(log)).isTrue();
          assertThat(Instant.now())
              .as("/readyz answered; " + Files.readString(log))
              .isBefore(start.plus(READY_LIMIT));
          if (status(client, port, "/readyz") == 200) {
            ready = Duration.between(start, Instant.now());
          } else {
            Thread.sleep(20);
          }
        }
        // serve logs where it serves after /readyz turns 200, and its log is written on a thread
        // of its own: the line can reach the file a few milliseconds after the first 200
        String serving = "serving https://0.0.0.0:" + port + "/mutate";
        Await.until(
            "'" + serving + "' in the log",
            Duration.ofSeconds(10),
            () -> read(log).contains(serving),
            () -> read(log));
        String served = Files.readString(log);
        // BoringSSL's native library unpacks into the writable /tmp, or TLS falls back to JSSE
        assertThat(served).contains("/mutate (TLS: BoringSSL");
        // jvm.options turns Spring AOT on: the bean definitions generated in the build are used
        assertThat(served).contains("Starting AOT-processed MeshInjector");
        assertThat(served).doesNotContain("Read-only file system", "Permission denied");
        String record =
            "launcher as uid %s, read-only /app and TLS folder, HOME=/nonexistent: /readyz 200 after %d ms%n"
                .formatted(UID.equals(currentUid()) ? UID + " (own)" : UID, ready.toMillis());
        System.out.print(record);
        Files.writeString(ROOT.resolve("tests/target/image-launch.txt"), record);

        // what the kubelet does on a rollout: SIGTERM to the launcher's process (the JVM, since
        // the launcher execs it); the pod stays in the endpoints until /readyz fails, so
        // admissions must still be answered while /readyz says 503
        byte[] review = Files.readAllBytes(ROOT.resolve("examples/admission-review.json"));
        assertThat(admit(client, port, review)).as("an admission before SIGTERM").isEqualTo(200);
        Instant terminated = Instant.now();
        server.destroy();
        int readyz = status(client, port, "/readyz");
        while (readyz == 200 && Instant.now().isBefore(terminated.plusSeconds(5))) {
          Thread.sleep(20);
          readyz = status(client, port, "/readyz");
        }
        assertThat(readyz).as("/readyz after SIGTERM; " + Files.readString(log)).isEqualTo(503);
        assertThat(admit(client, port, review))
            .as("an admission during the drain; " + Files.readString(log))
            .isEqualTo(200);
        assertThat(server.waitFor(30, TimeUnit.SECONDS))
            .as("the process ends after its drain period; " + Files.readString(log))
            .isTrue();
        // 143 = 128 + SIGTERM: the JVM's exit status after its shutdown hooks ran
        assertThat(server.exitValue()).as(Files.readString(log)).isEqualTo(143);
        assertThat(Files.readString(log)).contains("drain period over").doesNotContain("ERROR");
      } finally {
        server.destroy();
        if (!server.waitFor(20, TimeUnit.SECONDS)) {
          server.destroyForcibly();
        }
        Files.deleteIfExists(log);
      }
    } finally {
      writable(image);
      try (Stream<Path> all = Files.walk(image)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The prefix that runs a command as uid 65532, or nothing when this is not root already. */
  private static List<String> asImageUser() throws IOException, InterruptedException {
    if (!"0".equals(currentUid())) {
      return List.of();
    }
    Path setpriv =
        Stream.of("/usr/bin/setpriv", "/bin/setpriv")
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst()
            .orElse(null);
    assumeTrue(
        setpriv != null,
        "running as root and setpriv (util-linux) is absent: cannot drop to uid 65532");
    return List.of(
        setpriv.toString(),
        "--reuid=" + UID,
        "--regid=" + UID,
        "--clear-groups",
        "--inh-caps=-all",
        "--");
  }

  private static String currentUid() throws IOException, InterruptedException {
    Process id = new ProcessBuilder("id", "-u").start();
    String uid = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    id.waitFor();
    return uid;
  }

  private static void copyTree(Path from, Path to, String skip) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        if (p.getFileName().toString().equals(skip)) {
          continue; // an AOT cache is only valid for the jar at the path it was trained on
        }
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  private static void readOnlyForAll(Path tree) throws IOException {
    try (Stream<Path> all = Files.walk(tree)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        boolean exec = Files.isDirectory(p) || p.getParent().getFileName().toString().equals("bin");
        Files.setPosixFilePermissions(
            p, PosixFilePermissions.fromString(exec ? "r-xr-xr-x" : "r--r--r--"));
      }
    }
  }

  private static void writable(Path tree) throws IOException {
    try (Stream<Path> all = Files.walk(tree)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
      }
    }
  }

  private static int status(HttpClient client, int port, String path) throws InterruptedException {
    try {
      return client
          .send(
              HttpRequest.newBuilder(URI.create("https://localhost:" + port + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1; // not listening yet
    }
  }

  private static int admit(HttpClient client, int port, byte[] review) throws Exception {
    return client
        .send(
            HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/mutate"))
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(review))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
