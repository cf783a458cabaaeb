package io.meshinjector.plane;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * containerd (Debian's package) with its CRI plugin, on its own socket, root and state folders
 * under the node's folder, never the machine's {@code /run/containerd} or {@code
 * /var/lib/containerd}; runc runs the containers, the bridge plugin of Debian's
 * containernetworking-plugins gives pods their addresses. No registry is reachable: every image is
 * imported from a tarball into the {@code k8s.io} namespace the CRI plugin reads.
 */
final class Containerd {
  static final String PAUSE_IMAGE = "registry.k8s.io/pause:3.10";
  static final Path CNI_BIN = Path.of("/usr/lib/cni");

  private final Path dir;
  private Process process;

  Containerd(Path dir) {
    this.dir = dir;
  }

  Path socket() {
    return dir.resolve("containerd.sock");
  }

  Path cniConfDir() {
    return dir.resolve("net.d");
  }

  /** Writes the config (from containerd's own default) and the CNI network, and starts it. */
  void start(String bridge, String subnet) throws IOException {
    Files.createDirectories(cniConfDir());
    Files.createDirectories(dir.resolve("ipam"));
    String config = HostCommands.check(List.of("containerd", "config", "default"), 30);
    config =
        replace(config, "root = \"/var/lib/containerd\"", "root = \"" + dir.resolve("root") + "\"");
    config =
        replace(config, "state = \"/run/containerd\"", "state = \"" + dir.resolve("state") + "\"");
    config =
        replace(
            config,
            "address = \"/run/containerd/containerd.sock\"",
            "address = \"" + socket() + "\"");
    config =
        config.replaceFirst(
            "sandbox_image = \"[^\"]*\"", "sandbox_image = \"" + PAUSE_IMAGE + "\"");
    config = replace(config, "bin_dir = \"/opt/cni/bin\"", "bin_dir = \"" + CNI_BIN + "\"");
    config =
        replace(config, "conf_dir = \"/etc/cni/net.d\"", "conf_dir = \"" + cniConfDir() + "\"");
    // no AppArmor profile is loaded on these machines
    config = replace(config, "disable_apparmor = false", "disable_apparmor = true");
    // the kubelet's own oom_score_adj is not writable here; containers get the kubelet's values
    config = replace(config, "restrict_oom_score_adj = false", "restrict_oom_score_adj = true");
    Path configFile = KubePlane.write(dir.resolve("config.toml"), config);
    // bridge only: no portmap (no pod here asks for a host port, and it would leave iptables
    // chains behind), no masquerading (pod traffic never leaves the machine)
    KubePlane.write(
        cniConfDir().resolve("10-bridge.conflist"),
        "{\"cniVersion\":\"1.0.0\",\"name\":\"real-node\",\"plugins\":[{\"type\":\"bridge\","
            + "\"bridge\":\""
            + bridge
            + "\",\"isGateway\":true,\"ipMasq\":false,\"hairpinMode\":true,"
            + "\"ipam\":{\"type\":\"host-local\",\"ranges\":[[{\"subnet\":\""
            + subnet
            + "\"}]],\"routes\":[{\"dst\":\"0.0.0.0/0\"}],\"dataDir\":\""
            + dir.resolve("ipam")
            + "\"}},{\"type\":\"loopback\"}]}\n");
    process =
        new ProcessBuilder("containerd", "--config", configFile.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("containerd.log").toFile())
            .start();
    Await.until(
        "containerd's socket " + socket(),
        Duration.ofSeconds(30),
        () -> {
          if (!process.isAlive()) {
            throw new IllegalStateException("containerd exited: " + log());
          }
          return HostCommands.run(ctr("version"), 10).ok();
        },
        () -> KubePlane.tail(log(), 20));
  }

  private static String replace(String text, String from, String to) {
    if (!text.contains(from)) {
      throw new IllegalStateException(
          "containerd's default config no longer holds '" + from + "': the harness needs updating");
    }
    return text.replace(from, to);
  }

  List<String> ctr(String... args) {
    List<String> command =
        new java.util.ArrayList<>(List.of("ctr", "-a", socket().toString(), "-n", "k8s.io"));
    command.addAll(List.of(args));
    return command;
  }

  /** Imports a {@code docker save} or OCI tarball (Jib's buildTar writes one). */
  void importImage(Path tarball) {
    HostCommands.check(ctr("images", "import", tarball.toString()), 300);
  }

  String log() {
    try {
      return Files.exists(dir.resolve("containerd.log"))
          ? Files.readString(dir.resolve("containerd.log"))
          : "";
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /**
   * Kills every container it runs (the kubelet is gone by now, so nothing would stop them), then
   * containerd itself. Its shims outlive it by design: they are found by this containerd's socket
   * in their command line and killed too.
   */
  void stop() {
    if (process != null && process.isAlive()) {
      HostCommands.Result tasks = HostCommands.run(ctr("tasks", "ls", "-q"), 30);
      if (tasks.ok()) {
        for (String id : tasks.output().strip().split("\n")) {
          if (!id.isBlank()) {
            HostCommands.run(ctr("tasks", "kill", "-s", "SIGKILL", id.strip()), 10);
          }
        }
      }
      process.destroy();
      try {
        if (!process.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
    HostProcesses.killThoseNaming(socket().toString());
  }
}
