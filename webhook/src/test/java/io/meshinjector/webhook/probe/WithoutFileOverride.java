package io.meshinjector.webhook.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.ProbeReport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The probe of a host root as a process that file modes bind, whoever runs the test. Root reads
 * every file: its capabilities CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH override the modes a
 * permission test sets. As root, the probe runs in a child JVM whose bounding set lacks those two
 * (util-linux's {@code setpriv}), so the kernel denies it what it denies any other user; the class
 * path stays readable, as root still owns it. Otherwise it runs here.
 */
final class WithoutFileOverride {
  private static final Instant AT = Instant.parse("2026-11-20T10:00:00Z");

  private WithoutFileOverride() {}

  /** The probe's CNI verdict and facts ({@code capability.cni} and every fact) for {@code root}. */
  static Map<String, String> probe(Path root) throws IOException, InterruptedException {
    if (!"root".equals(System.getProperty("user.name"))) {
      return flatten(probeHere(root));
    }
    Path setpriv = Path.of("/usr/bin/setpriv");
    assertThat(setpriv)
        .as("util-linux's setpriv, to drop root's file-mode override for a permission test")
        .isExecutable();
    List<String> command = new ArrayList<>();
    command.add(setpriv.toString());
    command.add("--bounding-set=-dac_override,-dac_read_search");
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(WithoutFileOverride.class.getName());
    command.add(root.toAbsolutePath().toString());
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(child.getInputStream().readAllBytes());
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child probe ended").isTrue();
    assertThat(child.exitValue()).as(out).isZero();
    Map<String, String> facts = new LinkedHashMap<>();
    for (String line : out.split("\n")) {
      int tab = line.indexOf('\t');
      if (tab > 0) {
        facts.put(line.substring(0, tab), line.substring(tab + 1));
      }
    }
    assertThat(facts).as("the child's output: " + out).containsKey("capability.cni");
    return facts;
  }

  private static ProbeReport probeHere(Path root) {
    return HostProbe.withKernelFallback(root, ProbeOptions.defaults(), null, null).probe(AT);
  }

  private static Map<String, String> flatten(ProbeReport report) {
    Map<String, String> facts = new LinkedHashMap<>();
    report
        .status()
        .capabilities()
        .forEach((key, verdict) -> facts.put("capability." + key.id(), verdict.name()));
    report.status().facts().forEach((k, v) -> facts.put(k, v.replace('\n', ' ')));
    return facts;
  }

  /** The child: one line {@code name<TAB>value} a verdict or fact. */
  public static void main(String[] args) throws IOException {
    flatten(probeHere(Path.of(args[0]))).forEach((k, v) -> System.out.println(k + "\t" + v));
  }
}
