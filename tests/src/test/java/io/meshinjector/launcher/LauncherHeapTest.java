package io.meshinjector.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The JVM flags {@code bin/mesh-injector} derives from where it runs, read from its dry run: the
 * command it would exec. The container's memory limit comes from a cgroup directory of our own.
 */
class LauncherHeapTest {
  @TempDir Path cgroup;

  record Launch(List<String> flags, String err) {
    List<String> heap() {
      return flags.stream().filter(f -> f.startsWith("-Xm")).toList();
    }
  }

  Launch dryRun(String memoryMax, String... args) throws IOException, InterruptedException {
    return dryRunWith("", memoryMax, args);
  }

  Launch dryRunWith(String javaOpts, String memoryMax, String... args)
      throws IOException, InterruptedException {
    Files.writeString(cgroup.resolve("memory.max"), memoryMax + "\n");
    Path root = Path.of(System.getProperty("project.root", ".."));
    List<String> command =
        new java.util.ArrayList<>(List.of(root.resolve("bin/mesh-injector").toString()));
    command.addAll(Arrays.asList(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("MESH_INJECTOR_DRY_RUN", "1");
    pb.environment().put("MESH_INJECTOR_CGROUP_DIR", cgroup.toString());
    pb.environment().remove("MESH_INJECTOR_MAX_HEAP");
    pb.environment().remove("MESH_INJECTOR_MIN_HEAP");
    pb.environment().remove("MESH_INJECTOR_NON_HEAP");
    pb.environment().put("MESH_INJECTOR_JAVA_OPTS", javaOpts);
    // the launcher needs a jar to name; the build's is there after package, a stand-in otherwise
    Path jar = Files.createTempFile(cgroup, "stand-in", ".jar");
    pb.environment().put("MESH_INJECTOR_JAR", jar.toString());
    Process p = pb.start();
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(err).isZero();
    return new Launch(Arrays.asList(out.strip().split("\\s+")), err);
  }

  @ParameterizedTest(name = "limit {0}: serve heap {1}")
  @CsvSource({
    // the chart's default limit: about 210 MiB of the JVM's own, and the JIT's peaks, beside an
    // 80 MiB heap
    "402653184, 80m",
    "536870912, 208m",
    "1073741824, 720m",
  })
  void serveInAContainerGetsTheLimitLessTheJvmsOwnMemory(String limit, String heap)
      throws Exception {
    Launch launch = dryRun(limit, "serve");

    assertThat(launch.heap()).containsExactly("-Xms" + heap, "-Xmx" + heap);
    assertThat(launch.err()).isEmpty();
    // serve names the limit to set when its cluster view does not fit (HeapHeadroom)
    assertThat(launch.flags())
        .contains(
            "-Dmesh-injector.memory-limit-mib=" + Long.parseLong(limit) / 1048576,
            "-Dmesh-injector.non-heap-mib=304");
  }

  @ParameterizedTest(name = "limit {0}")
  @CsvSource({"268435456, 64m", "134217728, 32m"})
  void aLimitTooSmallForTheJvmIsNamedOnStderr(String limit, String heap) throws Exception {
    Launch launch = dryRun(limit, "serve");

    assertThat(launch.heap()).containsExactly("-Xms" + heap, "-Xmx" + heap);
    assertThat(launch.err())
        .contains("leaves less than 64 MiB of heap")
        .contains("at least 400 MiB");
  }

  /** The chart's javaToolOptions come after the launcher's flags: an -Xms of ours would clash. */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"-Xmx200m", "-XX:MaxRAMPercentage=50"})
  void anOperatorsHeapFlagReplacesTheDerivedHeap(String flag) throws Exception {
    Launch launch = dryRunWith("-XX:-UsePerfData " + flag, "402653184", "serve");

    assertThat(launch.flags()).containsSubsequence(flag).doesNotContain("-Xms80m", "-Xmx80m");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"max", "9223372036854771712"})
  void withoutALimitTheHeapIsTheLaunchersDefault(String memoryMax) throws Exception {
    assertThat(dryRun(memoryMax, "serve").heap()).containsExactly("-Xms80m", "-Xmx80m");
    assertThat(dryRun(memoryMax, "explain", "-n", "shop").heap())
        .as("the commands that run once read large --cluster files in a larger heap")
        .containsExactly("-Xms96m", "-Xmx96m");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"explain", "inject", "certs"})
  void commandsThatRunOnceCompileWithC1AndReportRunningOutOfMemory(String command)
      throws Exception {
    Launch launch = dryRun("402653184", command);

    assertThat(launch.flags())
        .contains("-XX:TieredStopAtLevel=1", "-XX:-ExitOnOutOfMemoryError")
        .as("a share of the limit, from jvm.options: the limit-less-reserve rule is serve's")
        .contains("-XX:MaxRAMPercentage=60")
        .noneMatch(f -> f.startsWith("-Xmx"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"serve", "probe"})
  void longRunningCommandsKeepTheFullJit(String command) throws Exception {
    assertThat(dryRun("402653184", command).flags())
        .doesNotContain("-XX:TieredStopAtLevel=1", "-XX:-ExitOnOutOfMemoryError");
  }
}
