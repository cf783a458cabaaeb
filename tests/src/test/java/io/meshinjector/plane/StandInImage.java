package io.meshinjector.plane;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * A stand-in for the mesh's proxy image, which no registry here can give: busybox (Debian's
 * busybox-static, the package the project's image is built from) and two scripts, under the proxy's
 * own image name, in {@code docker save} form for {@code ctr images import}.
 *
 * <ul>
 *   <li>{@code /usr/lib/linkerd/linkerd2-proxy-init} (the init container's command) records when it
 *       ran and its arguments, and exits 0: the real one needs iptables binaries with file
 *       capabilities, which only the real image has;
 *   <li>{@code /usr/lib/linkerd/linkerd2-network-validator} (the validator's command, CNI path)
 *       fails as Linkerd's does when the CNI plugin's redirect is not in place: its message, in the
 *       kubelet's termination message too, and exit code {@link #VALIDATOR_EXIT_CODE}. No mesh CNI
 *       runs here, so that is what the real validator would do on this node;
 *   <li>{@code /usr/lib/linkerd/linkerd-await} (the proxy's postStart hook) returns once the proxy
 *       answers {@code /ready};
 *   <li>the entrypoint (the proxy) records when it started, waits {@link
 *       #PROXY_READY_AFTER_SECONDS} seconds, then answers {@code /ready} on the admin port 4191
 *       (busybox httpd), so the kubelet's startup probe holds the app until then.
 * </ul>
 *
 * Both write to their log (stdout), which the kubelet keeps under {@code /var/log/pods}.
 */
public final class StandInImage {
  public static final int PROXY_READY_AFTER_SECONDS = 6;

  /** Linkerd's network validator's exit code when the redirect is not in place. */
  public static final int VALIDATOR_EXIT_CODE = 95;

  /** The line Linkerd's validator logs before it exits {@link #VALIDATOR_EXIT_CODE}. */
  public static final String VALIDATOR_MESSAGE =
      "Failed to validate networking configuration. Please ensure iptables rules are rewriting"
          + " traffic as expected.";

  private StandInImage() {}

  /** Builds the tarball in {@code dir} from the busybox-static package in {@code debs}. */
  public static Path build(Path dir, Path busyboxDeb, List<String> imageNames) throws IOException {
    Path root = Files.createDirectories(dir.resolve("rootfs"));
    HostCommands.check(List.of("dpkg-deb", "-x", busyboxDeb.toString(), root.toString()), 60);
    Path busybox = root.resolve("bin/busybox");
    Files.createDirectories(root.resolve("usr/lib/linkerd"));
    Files.createDirectories(root.resolve("www"));
    Files.createDirectories(root.resolve("tmp"));
    Files.writeString(root.resolve("www/ready"), "ready\n");
    for (String applet : List.of("sh", "date", "sleep", "httpd", "echo", "wget")) {
      Path link = root.resolve("bin/" + applet);
      if (!Files.exists(link)) {
        Files.createSymbolicLink(link, Path.of("busybox"));
      }
    }
    if (!Files.isExecutable(busybox)) {
      throw new IOException(busyboxDeb + " holds no bin/busybox");
    }
    script(
        root.resolve("usr/lib/linkerd/linkerd2-proxy-init"),
        "#!/bin/sh\necho \"stand-in proxy-init ran at $(date +%s) with: $*\"\n");
    script(
        root.resolve("usr/lib/linkerd/linkerd2-network-validator"),
        "#!/bin/sh\necho \""
            + VALIDATOR_MESSAGE
            + "\"\necho \""
            + VALIDATOR_MESSAGE
            + "\" > /dev/termination-log 2>/dev/null\nexit "
            + VALIDATOR_EXIT_CODE
            + "\n");
    // the proxy container's postStart hook, as rendered: the kubelet starts the next container
    // only once it returns, so it must return only when the proxy answers
    script(
        root.resolve("usr/lib/linkerd/linkerd-await"),
        "#!/bin/sh\nend=$(( $(date +%s) + 120 ))\n"
            + "until wget -q -O /dev/null http://127.0.0.1:4191/ready; do\n"
            + "  [ \"$(date +%s)\" -ge \"$end\" ] && exit 1\n"
            + "  sleep 1\n"
            + "done\n");
    script(
        root.resolve("proxy.sh"),
        "#!/bin/sh\necho \"stand-in proxy started at $(date +%s)\"\nsleep "
            + PROXY_READY_AFTER_SECONDS
            + "\necho \"stand-in proxy ready at $(date +%s)\"\nexec httpd -f -p 4191 -h /www\n");
    Path layer = dir.resolve("layer.tar");
    HostCommands.check(
        List.of(
            "tar",
            "-C",
            root.toString(),
            "--owner=0",
            "--group=0",
            "--numeric-owner",
            "-cf",
            layer.toString(),
            "."),
        60);
    String diffId = "sha256:" + sha256(layer);
    Files.writeString(
        dir.resolve("config.json"),
        "{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Entrypoint\":[\"/bin/sh\","
            + "\"/proxy.sh\"],\"Env\":[\"PATH=/bin:/usr/bin\"]},\"rootfs\":{\"type\":\"layers\","
            + "\"diff_ids\":[\""
            + diffId
            + "\"]}}");
    Files.writeString(
        dir.resolve("manifest.json"),
        "[{\"Config\":\"config.json\",\"RepoTags\":[\""
            + String.join("\",\"", imageNames)
            + "\"],\"Layers\":[\"layer.tar\"]}]");
    Path tarball = dir.resolve("stand-in.tar");
    HostCommands.check(
        List.of(
            "tar",
            "-C",
            dir.toString(),
            "-cf",
            tarball.toString(),
            "manifest.json",
            "config.json",
            "layer.tar"),
        60);
    return tarball;
  }

  /** The busybox-static package the image build downloaded (the webhook module's target). */
  public static Path busyboxDeb() throws IOException {
    Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    Path debs = root.resolve("webhook/target/image/work/debs");
    if (!Files.isDirectory(debs)) {
      return null;
    }
    try (Stream<Path> files = Files.list(debs)) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("busybox-static_"))
          .findFirst()
          .orElse(null);
    }
  }

  private static void script(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    file.toFile().setExecutable(true, false);
  }

  private static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
