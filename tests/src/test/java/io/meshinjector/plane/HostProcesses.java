package io.meshinjector.plane;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What the real node leaves on this machine beyond its own child processes: containerd's shims
 * (which outlive containerd by design) and a crashed run's processes, mounts and network
 * namespaces. Each is found by the node's own folder or socket, never by a program's name.
 */
final class HostProcesses {
  private HostProcesses() {}

  /** Kills (SIGKILL) every process whose command line holds {@code marker}, but this JVM. */
  static void killThoseNaming(String marker) {
    long self = ProcessHandle.current().pid();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.toList()) {
        String name = proc.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit) || Long.parseLong(name) == self) {
          continue;
        }
        String cmdline;
        try {
          cmdline =
              new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8)
                  .replace('\0', ' ');
        } catch (IOException e) {
          continue; // gone meanwhile
        }
        if (cmdline.contains(marker)) {
          ProcessHandle.of(Long.parseLong(name)).ifPresent(ProcessHandle::destroyForcibly);
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Unmounts, deepest first, every mount under {@code dir} (the kubelet's volumes, rootfs). */
  static void unmountUnder(Path dir) {
    String prefix = dir.toAbsolutePath().normalize() + "/";
    List<String> points = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        String[] f = line.split(" ");
        String point = f[4].replace("\\040", " ");
        if (point.startsWith(prefix)) {
          points.add(point);
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    points.sort(Comparator.comparingInt(String::length).reversed());
    for (String point : points) {
      HostCommands.run(List.of("umount", "-l", point), 10);
    }
  }
}
