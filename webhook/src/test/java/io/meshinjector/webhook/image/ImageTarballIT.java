package io.meshinjector.webhook.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.meshinjector.webhook.support.Tls;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The image tarball that {@code -Pimage-tar} builds with Jib (docs/image.md), read as a container
 * runtime would: its manifest and configuration, and the union of its layers. Then, when this runs
 * as root with unshare and chroot, the layers are unpacked in order and the entrypoint runs in them
 * as the image says (its user, environment and working directory; a read-only root file system,
 * only /tmp writable, the TLS files in a read-only folder) until {@code /readyz} answers 200.
 * Skipped unless the profile built the tarball: a default build does not.
 */
class ImageTarballIT {
  private static final String TARBALL = System.getProperty("image.tarball", "");
  private static final String IMAGE = "ghcr.io/mesh-injector/mesh-injector:0.1.0";
  private static final String JAR = "app/lib/app/mesh-injector.jar";
  private static final String AOT = "app/lib/app/mesh-injector.aot";
  private static final Duration READY_LIMIT = Duration.ofSeconds(120);

  /** Small files whose text the checks read. */
  private static final List<String> READ_TEXT =
      List.of("app/bin/mesh-injector", "etc/passwd", "opt/java/openjdk/release");

  private static JsonObject config;
  private static List<Path> layers;
  private static Map<String, TarStream.Entry> files;
  private static Map<String, String> texts;
  private static Path unpacked;

  @BeforeAll
  static void readTarball() throws Exception {
    if (TARBALL.isEmpty()) {
      return; // each test says so: skipped, with the reason
    }
    Path tarball = Path.of(TARBALL);
    assertThat(tarball).as("the image-tar profile writes the tarball before its test").exists();

    unpacked = Files.createTempDirectory("mesh-injector-image-tar");
    try (InputStream in = new BufferedInputStream(Files.newInputStream(tarball))) {
      TarStream.read(
          in,
          (entry, body) -> {
            if (entry.isFile()) {
              assertThat(entry.path()).doesNotContain("..");
              Path file = unpacked.resolve(entry.path());
              Files.createDirectories(file.getParent());
              Files.copy(body, file);
            }
          });
    }
    // Jib writes `docker save`'s archive by default, an OCI image layout with
    // -Djib.container.format=OCI: either is read as a runtime loading it would
    if (Files.exists(unpacked.resolve("index.json"))) {
      readOciLayout();
    } else {
      JsonArray manifests = json(unpacked.resolve("manifest.json")).asJsonArray();
      assertThat(manifests).as("one image in the tarball").hasSize(1);
      JsonObject manifest = manifests.getJsonObject(0);
      assertThat(strings(manifest.getJsonArray("RepoTags"))).containsExactly(IMAGE);
      config = json(unpacked.resolve(manifest.getString("Config"))).asJsonObject();
      layers = strings(manifest.getJsonArray("Layers")).stream().map(unpacked::resolve).toList();
    }

    // the layers in order, each checked against its diff ID, into one file system view
    List<String> diffIds = strings(config.getJsonObject("rootfs").getJsonArray("diff_ids"));
    assertThat(layers).as("a layer per diff ID").hasSameSizeAs(diffIds);
    files = new HashMap<>();
    texts = new HashMap<>();
    for (int i = 0; i < layers.size(); i++) {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      try (InputStream raw = new BufferedInputStream(Files.newInputStream(layers.get(i)));
          DigestInputStream in = new DigestInputStream(new GZIPInputStream(raw), sha256)) {
        TarStream.read(
            in,
            (entry, body) -> {
              assertThat(entry.path()).as("whiteouts: no layer deletes").doesNotContain(".wh.");
              files.put(entry.path(), entry);
              if (READ_TEXT.contains(entry.path())) {
                texts.put(entry.path(), new String(body.readAllBytes(), StandardCharsets.UTF_8));
              }
            });
        in.transferTo(java.io.OutputStream.nullOutputStream()); // the end-of-archive padding
      }
      assertThat("sha256:" + HexFormat.of().formatHex(sha256.digest()))
          .as("layer %d's uncompressed content", i)
          .isEqualTo(diffIds.get(i));
    }
  }

  /** index.json, then the manifest and config blobs, each checked against its digest. */
  private static void readOciLayout() throws Exception {
    assertThat(Files.readString(unpacked.resolve("oci-layout"))).contains("imageLayoutVersion");
    JsonArray manifests =
        json(unpacked.resolve("index.json")).asJsonObject().getJsonArray("manifests");
    assertThat(manifests).as("one image in the tarball").hasSize(1);
    JsonObject descriptor = manifests.getJsonObject(0);
    assertThat(
            descriptor.getJsonObject("annotations").getString("org.opencontainers.image.ref.name"))
        .isEqualTo(IMAGE);
    JsonObject manifest = json(blob(descriptor.getString("digest"))).asJsonObject();
    config = json(blob(manifest.getJsonObject("config").getString("digest"))).asJsonObject();
    List<Path> blobs = new ArrayList<>();
    for (JsonObject layer : manifest.getJsonArray("layers").getValuesAs(JsonObject.class)) {
      assertThat(layer.getString("mediaType")).endsWith("tar+gzip");
      blobs.add(blob(layer.getString("digest")));
    }
    layers = blobs;
  }

  /** The blob of {@code digest} in the OCI layout, after checking that its content has it. */
  private static Path blob(String digest) throws Exception {
    assertThat(digest).startsWith("sha256:");
    Path file = unpacked.resolve("blobs/sha256/" + digest.substring("sha256:".length()));
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha256)) {
      in.transferTo(java.io.OutputStream.nullOutputStream());
    }
    assertThat("sha256:" + HexFormat.of().formatHex(sha256.digest()))
        .as(file.toString())
        .isEqualTo(digest);
    return file;
  }

  @BeforeEach
  void onlyWithTheTarball() {
    assumeTrue(
        !TARBALL.isEmpty(),
        "no image tarball: it is built only by ./mvnw -B -Pimage-tar -pl webhook -am verify");
  }

  @org.junit.jupiter.api.AfterAll
  static void cleanUp() throws IOException {
    if (unpacked != null) {
      delete(unpacked);
    }
  }

  @Test
  void theConfigurationRunsTheLauncherAsTheNonRootUser() {
    JsonObject c = config.getJsonObject("config");
    assertThat(config.getString("os")).isEqualTo("linux");
    assertThat(config.getString("architecture")).isEqualTo("amd64");
    assertThat(c.getString("User")).isEqualTo("65532:65532");
    assertThat(c.getString("WorkingDir")).isEqualTo("/app");
    assertThat(strings(c.getJsonArray("Entrypoint"))).containsExactly("/app/bin/mesh-injector");
    assertThat(strings(c.getJsonArray("Cmd"))).containsExactly("serve", "--help");
    assertThat(c.getJsonObject("ExposedPorts").keySet())
        .containsExactlyInAnyOrder("8443/tcp", "9090/tcp");
    Map<String, String> env = env();
    assertThat(env).containsEntry("JAVA_HOME", "/opt/java/openjdk");
    assertThat(env.get("PATH").split(":")).startsWith("/opt/java/openjdk/bin").contains("/usr/bin");
  }

  @Test
  void theLayersHoldTheLauncherTheJarAShellAndAJava25Runtime() {
    TarStream.Entry launcher = resolve("app/bin/mesh-injector");
    assertThat(launcher.isFile()).isTrue();
    assertThat(launcher.mode() & 0777).as("launcher mode").isEqualTo(0755);
    assertThat(texts.get("app/bin/mesh-injector")).startsWith("#!/bin/sh");
    assertThat(resolve("app/bin/jvm.options").isFile()).isTrue();
    assertThat(resolve(JAR).size()).as("the runnable jar").isPositive();
    long libraries =
        files.keySet().stream()
            .filter(p -> p.startsWith("app/lib/app/lib/") && p.endsWith(".jar"))
            .count();
    assertThat(libraries).as("the jar's class path under lib/").isGreaterThan(50);
    assertThat(resolve("app/share/cluster.yaml").isFile()).isTrue();

    // what the launcher runs: /bin/sh and the tools it calls, through the merged-/usr links
    for (String tool : List.of("bin/sh", "usr/bin/sed", "usr/bin/dirname", "usr/bin/cat")) {
      assertExecutable(tool);
    }
    for (String tool : List.of("usr/bin/readlink", "usr/bin/awk", "usr/bin/mktemp")) {
      assertExecutable(tool);
    }
    String javaHome = env().get("JAVA_HOME");
    assertExecutable(javaHome.substring(1) + "/bin/java");
    assertThat(texts.get("opt/java/openjdk/release")).contains("JAVA_VERSION=\"25");
    // java's program interpreter and the C library it links
    assertThat(resolve("lib64/ld-linux-x86-64.so.2").isFile()).isTrue();
    assertThat(resolve("usr/lib/x86_64-linux-gnu/libc.so.6").isFile()).isTrue();
    assertThat(texts.get("etc/passwd")).contains(":65532:65532:");
  }

  @Test
  void onlyTmpIsWritableByTheRuntimeUser() {
    assertThat(resolve("tmp").isDirectory()).isTrue();
    assertThat(resolve("tmp").mode() & 07777).isEqualTo(01777);
    List<String> writable =
        files.values().stream()
            .filter(e -> !e.isSymlink())
            .filter(e -> e.uid() != 0 || (e.mode() & 0022) != 0)
            .filter(e -> !e.path().equals("tmp"))
            .map(e -> e.path() + " " + Integer.toOctalString(e.mode()) + " uid " + e.uid())
            .toList();
    assertThat(writable).as("files not root's or writable by others").isEmpty();
  }

  @Test
  void theEntrypointServesInsideTheUnpackedLayers() throws Exception {
    assumeTrue("0".equals(run("id", "-u").strip()), "not root: cannot chroot into the layers");
    for (String tool : List.of("unshare", "chroot", "mount", "tar")) {
      assumeTrue(!run("sh", "-c", "command -v " + tool).isBlank(), tool + " not found");
    }
    assumeTrue(
        !run("unshare", "--mount", "--pid", "--fork", "true").contains("(exit"),
        "no mount namespaces here (a container without CAP_SYS_ADMIN?)");
    Path root = Files.createTempDirectory("mesh-injector-image-root");
    try {
      // a root file system's own mode (a temporary folder's 700 would keep uid 65532 out)
      Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
      for (Path layer : layers) {
        String out = run("tar", "-xzf", layer.toString(), "-C", root.toString());
        assertThat(out).as("unpacking " + layer.getFileName()).doesNotContain("(exit");
      }
      // the TLS files, as a Secret volume would hold them: written by the image's own launcher
      Files.createDirectories(root.resolve("run/tls"));
      Process certs =
          inImage(
                  root,
                  "0:0",
                  List.of(
                      "/app/bin/mesh-injector", "certs", "--out", "/run/tls", "--dns", "localhost"),
                  Map.of())
              .start();
      String certsOut = new String(certs.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(certs.waitFor(120, TimeUnit.SECONDS)).as(certsOut).isTrue();
      assertThat(certs.exitValue()).as(certsOut).isZero();
      run("chown", "-R", "65532:65532", root.resolve("run/tls").toString());

      boolean hasAot = files.containsKey(AOT);
      int port = freePort();
      List<String> command =
          new ArrayList<>(strings(config.getJsonObject("config").getJsonArray("Entrypoint")));
      command.addAll(
          List.of(
              "serve",
              "--cluster",
              "/app/share/cluster.yaml",
              "--tls-dir",
              "/run/tls",
              "--port",
              String.valueOf(port),
              "--metrics-port",
              String.valueOf(freePort())));
      // with the image's AOT cache, the JVM must use it or not start at all
      Map<String, String> extra =
          hasAot ? Map.of("MESH_INJECTOR_JAVA_OPTS", "-XX:AOTMode=on") : Map.of();
      Path log = Files.createTempFile("mesh-injector-image-tar", ".log");
      Instant start = Instant.now();
      Process server =
          inImage(root, "65532:65532", command, extra)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        HttpClient client =
            HttpClient.newBuilder()
                .sslContext(Tls.sslContext(root.resolve("run/tls/ca.crt")))
                .build();
        Duration ready = null;
        while (ready == null) {
          assertThat(server.isAlive()).as(Files.readString(log)).isTrue();
          assertThat(Instant.now())
              .as("/readyz answered; " + Files.readString(log))
              .isBefore(start.plus(READY_LIMIT));
          if (status(client, port) == 200) {
            ready = Duration.between(start, Instant.now());
          } else {
            Thread.sleep(20);
          }
        }
        // serve logs where it serves after /readyz turns 200, and its log is written on a thread
        // of its own: the line can reach the file a few milliseconds after the first 200
        String serving = "serving https://0.0.0.0:" + port + "/mutate";
        Instant logDeadline = Instant.now().plusSeconds(10);
        String served = Files.readString(log);
        while (!served.contains(serving) && Instant.now().isBefore(logDeadline)) {
          Thread.sleep(20);
          served = Files.readString(log);
        }
        assertThat(served).contains(serving);
        assertThat(served).doesNotContain("Read-only file system", "Permission denied");
        String record =
            "image tarball %s, unpacked, entrypoint as 65532:65532 on a read-only root%s: /readyz 200 after %d ms%n"
                .formatted(
                    Path.of(TARBALL).getFileName(),
                    hasAot ? " with its AOT cache (AOTMode=on)" : "",
                    ready.toMillis());
        System.out.print(record);
        Files.writeString(Path.of(TARBALL).resolveSibling("image-tarball-run.txt"), record);
      } finally {
        // SIGTERM to the JVM (PID 1 of its namespace), then to unshare, which kills what is left
        server.descendants().forEach(ProcessHandle::destroy);
        server.destroy();
        if (!server.waitFor(20, TimeUnit.SECONDS)) {
          server.destroyForcibly();
        }
        Files.deleteIfExists(log);
      }
    } finally {
      // the mounts lived in the namespace of the processes above, gone with them
      delete(root);
    }
  }

  @Test
  void theProbesActiveCheckRunsTheImagesOwnIptablesAsTheDaemonSetWould() throws Exception {
    assumeTrue("0".equals(run("id", "-u").strip()), "not root: cannot chroot into the layers");
    for (String tool : List.of("unshare", "chroot", "mount", "tar", "setpriv")) {
      assumeTrue(!run("sh", "-c", "command -v " + tool).isBlank(), tool + " not found");
    }
    assumeTrue(
        !run("unshare", "--mount", "--pid", "--fork", "true").contains("(exit"),
        "no mount namespaces here (a container without CAP_SYS_ADMIN?)");
    // the binaries come from the image's own Debian packages, not from the machine running this
    for (String bin :
        List.of(
            "iptables-legacy",
            "iptables-legacy-save",
            "iptables-nft",
            "iptables-nft-save",
            "ip6tables-legacy",
            "ip6tables-legacy-save",
            "ip6tables-nft",
            "ip6tables-nft-save",
            "nft")) {
      assertExecutable("usr/sbin/" + bin);
    }
    assertExecutable("usr/bin/unshare");
    Path root = Files.createTempDirectory("mesh-injector-image-root");
    try {
      Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
      for (Path layer : layers) {
        String out = run("tar", "-xzf", layer.toString(), "-C", root.toString());
        assertThat(out).as("unpacking " + layer.getFileName()).doesNotContain("(exit");
      }
      Files.createDirectories(root.resolve("run/tls"));
      // the chart's probe.activeCheck: uid 0, a read-only root, a tmpfs /tmp, and only SYS_ADMIN,
      // NET_ADMIN and NET_RAW (SYS_CHROOT as well, which chroot needs to get there)
      List<String> capabilities =
          List.of(
              "setpriv",
              "--inh-caps=-all",
              "--bounding-set=-all,+sys_admin,+net_admin,+net_raw,+sys_chroot");
      Path out = Files.createTempFile("mesh-injector-image-probe", ".json");
      Path err = Files.createTempFile("mesh-injector-image-probe", ".log");
      Process probe =
          inImage(
                  root,
                  "0:0",
                  true,
                  capabilities,
                  List.of(
                      "/app/bin/mesh-injector",
                      "probe",
                      "--node",
                      "image-test",
                      "--host-root",
                      "/host",
                      "--dry-run",
                      "-o",
                      "json",
                      "--active-check"),
                  Map.of())
              .redirectErrorStream(false)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      boolean finished = probe.waitFor(120, TimeUnit.SECONDS);
      if (!finished) {
        probe.descendants().forEach(ProcessHandle::destroyForcibly);
        probe.destroyForcibly();
      }
      String json = Files.readString(out);
      String log = Files.readString(err);
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
      assertThat(finished).as("the probe finished within 120 s; " + log).isTrue();
      assertThat(probe.exitValue()).as(json + log).isZero();
      System.out.print("image's active check: " + json);
      JsonObject status;
      try (JsonReader reader = Json.createReader(new StringReader(json))) {
        status = reader.readObject().getJsonObject("status");
      }
      for (String key :
          List.of("iptables-legacy", "iptables-nft", "ip6tables-legacy", "ip6tables-nft")) {
        assertThat(status.getJsonObject("capabilities").getString(key))
            .as(key)
            .isEqualTo("available");
        assertThat(status.getJsonObject("sources").getString(key)).as(key).isEqualTo("active");
        assertThat(status.getJsonObject("facts").getString("reason." + key))
            .as(key)
            .startsWith(
                key + " created a nat chain with a REDIRECT rule in a new network namespace");
      }
      // the image's nft, with the libraries the image carries for it
      assertThat(status.getJsonObject("capabilities").getString("nftables")).isEqualTo("available");
      assertThat(status.getJsonObject("sources").getString("nftables")).isEqualTo("active");
      assertThat(status.getJsonObject("facts").getString("reason.nftables"))
          .startsWith("nft created an inet nat table with a nat chain and a redirect rule");
    } finally {
      delete(root);
    }
  }

  /**
   * A process running {@code command} inside {@code root} as a container runtime would: a private
   * mount and PID namespace (so it all goes when the process ends), proc, the usual device nodes, a
   * tmpfs /tmp, the rest read-only; the image's environment and working directory, nothing else.
   */
  private static ProcessBuilder inImage(
      Path root, String user, List<String> command, Map<String, String> extraEnv) {
    return inImage(root, user, !"0:0".equals(user), List.of(), command, extraEnv);
  }

  /**
   * @param readOnly the root file system mounted read-only, as the chart's pods have it
   * @param prefix run before chroot, e.g. setpriv to give root only a container's capabilities
   */
  private static ProcessBuilder inImage(
      Path root,
      String user,
      boolean readOnly,
      List<String> prefix,
      List<String> command,
      Map<String, String> extraEnv) {
    String script =
        """
        set -eu
        root=$1; user=$2; ro=$3; shift 3
        mount --bind "$root" "$root"
        mount -t proc proc "$root/proc"
        mount -t tmpfs -o mode=755 tmpfs "$root/dev"
        for n in null zero random urandom; do
          : > "$root/dev/$n"; mount --bind "/dev/$n" "$root/dev/$n"
        done
        mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
        mount --bind "$root/run/tls" "$root/run/tls"
        if [ "$ro" = ro ]; then
          mount -o remount,bind,ro "$root/run/tls"
          mount -o remount,bind,ro "$root"
        fi
        # as root, no --userspec: it would set groups, which a container's root cannot (no SETGID)
        as=--userspec=$user
        [ "$user" != 0:0 ] || as=
        exec $PREFIX chroot $as "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$WORKDIR" "$@"
        """;
    List<String> args =
        new ArrayList<>(
            List.of(
                "unshare",
                "--mount",
                "--pid",
                "--fork",
                "--kill-child",
                "sh",
                "-c",
                script,
                "sh",
                root.toString(),
                user,
                readOnly ? "ro" : "rw"));
    args.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(args).redirectErrorStream(true);
    Map<String, String> environment = builder.environment();
    environment.clear();
    environment.putAll(env());
    environment.put("HOME", "/nonexistent");
    environment.put("WORKDIR", config.getJsonObject("config").getString("WorkingDir"));
    // the host's setpriv, outside the chroot; unset, word-split to nothing
    environment.put("PREFIX", String.join(" ", prefix));
    environment.putAll(extraEnv);
    return builder;
  }

  private static Map<String, String> env() {
    Map<String, String> env = new LinkedHashMap<>();
    for (String kv : strings(config.getJsonObject("config").getJsonArray("Env"))) {
      int eq = kv.indexOf('=');
      env.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return env;
  }

  /** The entry at {@code path} in the layers' union, following symbolic links as the kernel. */
  private static TarStream.Entry resolve(String path) {
    String current = "";
    List<String> rest = new ArrayList<>(List.of(path.split("/")));
    int hops = 0;
    TarStream.Entry entry = null;
    while (!rest.isEmpty()) {
      String part = rest.remove(0);
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        current = current.contains("/") ? current.substring(0, current.lastIndexOf('/')) : "";
        continue;
      }
      String next = current.isEmpty() ? part : current + "/" + part;
      entry = files.get(next);
      assertThat(entry).as("%s (resolving %s) in the layers", next, path).isNotNull();
      if (entry.isSymlink()) {
        assertThat(++hops).as("symbolic links resolving " + path).isLessThan(40);
        String target = entry.linkTarget();
        rest.addAll(0, List.of(target.split("/")));
        if (target.startsWith("/")) {
          current = "";
        }
      } else if (entry.isHardLink()) {
        entry = resolve(TarStream.normalize(entry.linkTarget()));
        current = next;
      } else {
        current = next;
      }
    }
    assertThat(entry).as(path).isNotNull();
    return entry;
  }

  private static void assertExecutable(String path) {
    TarStream.Entry e = resolve(path);
    assertThat(e.isFile()).as(path + " is a file").isTrue();
    assertThat(e.mode() & 0111).as(path + " is executable").isEqualTo(0111);
  }

  private static jakarta.json.JsonValue json(Path file) throws IOException {
    try (JsonReader reader = Json.createReader(new StringReader(Files.readString(file)))) {
      return reader.readValue();
    }
  }

  private static List<String> strings(JsonArray array) {
    return array.getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
  }

  private static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
    return p.exitValue() == 0 || command[0].equals("sh")
        ? out
        : out + " (exit " + p.exitValue() + ")";
  }

  private static int status(HttpClient client, int port) throws InterruptedException {
    try {
      return client
          .send(
              HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/readyz"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1; // not listening yet
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void delete(Path tree) throws IOException {
    try (Stream<Path> all = Files.walk(tree)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
