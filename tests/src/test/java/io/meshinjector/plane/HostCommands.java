package io.meshinjector.plane;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Short commands on this machine (ip, ctr, kube-proxy --cleanup), their output for errors. */
final class HostCommands {
  record Result(int exit, String output) {
    boolean ok() {
      return exit == 0;
    }
  }

  private HostCommands() {}

  static Result run(List<String> command, long timeoutSeconds) {
    try {
      Path out = Files.createTempFile("host-command-", ".txt");
      try {
        Process p =
            new ProcessBuilder(new ArrayList<>(command))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
          return new Result(-1, command + " still running after " + timeoutSeconds + " s");
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      return new Result(-1, command + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, command + ": interrupted");
    }
  }

  /** Runs {@code command} and fails naming it and its output when it does not exit 0. */
  static String check(List<String> command, long timeoutSeconds) {
    Result r = run(command, timeoutSeconds);
    if (!r.ok()) {
      throw new IllegalStateException(
          String.join(" ", command) + " exited " + r.exit() + ": " + r.output().strip());
    }
    return r.output();
  }

  /** The full path of {@code name} in the usual folders, or null. */
  static Path which(String name) {
    for (String dir : List.of("/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/bin")) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }
}
