package io.meshinjector.plane;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A command run as a user runs it: {@code bin/mesh-injector ...} or the plane's kubectl. */
public final class Cli {
  public record Result(int exit, String out, String err, Duration took) {}

  private Cli() {}

  /** {@code bin/mesh-injector ARGS} as an operator runs it on {@code kubeconfig}. */
  public static Result meshInjector(Path dir, Path kubeconfig, Duration limit, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(Serve.launcher().toString()));
    command.addAll(List.of(args));
    return run(dir, kubeconfig, command, limit);
  }

  public static Result run(Path dir, Path kubeconfig, List<String> command, Duration limit)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out-", ".txt");
    Path err = Files.createTempFile(dir, "err-", ".txt");
    ProcessBuilder pb =
        new ProcessBuilder(new ArrayList<>(command))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    pb.environment().remove("KUBERNETES_SERVICE_HOST");
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    long start = System.nanoTime();
    Process p = pb.start();
    if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " still running after " + limit);
    }
    return new Result(
        p.exitValue(),
        Files.readString(out),
        Files.readString(err),
        Duration.ofNanos(System.nanoTime() - start));
  }
}
