package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The active check for real: the machine's own iptables-legacy and iptables-nft (Debian's {@code
 * iptables} package, which .ci/run installs), in new network namespaces made by util-linux's
 * unshare, on this machine's kernel. Needs root; skipped, saying why, otherwise.
 *
 * <p>The host's rules are read before and after and must be identical: the check may only ever
 * touch its throwaway namespace.
 */
@Timeout(120)
class RealIptablesCheckTest {
  static final Path SBIN = Path.of("/usr/sbin");

  @TempDir Path host;

  @BeforeEach
  void needsRootAndIptables() throws Exception {
    Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name")) || uid() == 0,
        "not root: the active check needs a new network namespace (run the tests as root)");
    for (String b :
        List.of("iptables-legacy", "iptables-legacy-save", "iptables-nft", "iptables-nft-save")) {
      Assumptions.assumeTrue(
          Files.isExecutable(SBIN.resolve(b)),
          SBIN.resolve(b)
              + " is missing: install Debian's iptables package (apt-get install -y iptables;"
              + " .ci/run does)");
    }
    Assumptions.assumeTrue(
        run(List.of("unshare", "--net", "--", "true")).exit == 0,
        "unshare --net does not work here (util-linux missing, or no CAP_SYS_ADMIN)");
  }

  @Test
  void bothBackendsAreAvailableOnThisKernelAndTheHostsRulesAreUntouched() throws Exception {
    Map<String, String> before = hostRules();

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        new CommandLine(
                new ProbeCommand(
                    () -> {
                      throw new AssertionError("--dry-run talks to no cluster");
                    },
                    Clock.fixed(Instant.parse("2026-11-25T10:00:00Z"), ZoneOffset.UTC),
                    d -> false))
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(
                "--node",
                "this-machine",
                "--host-root",
                host.toString(),
                "--dry-run",
                "-o",
                "json",
                "--active-check",
                "--iptables-dir",
                SBIN.toString());

    Map<String, String> after = hostRules();
    assertThat(code).as(err.toString()).isZero();
    JsonNode status = new ObjectMapper().readTree(out.toString()).path("status");
    System.out.println("active check on this machine: " + status.toPrettyString());
    for (String key : List.of("iptables-legacy", "iptables-nft")) {
      assertThat(status.path("capabilities").path(key).asText()).as(key).isEqualTo("available");
      assertThat(status.path("sources").path(key).asText()).as(key).isEqualTo("active");
      assertThat(status.path("facts").path("reason." + key).asText())
          .as(key)
          .startsWith(
              key
                  + " created a nat chain with a REDIRECT rule in a new network namespace and"
                  + " read it back (");
    }
    // the host root is an empty dir: the files know only what the kernel's own config says, read
    // from the probe's own /proc, where the kernel has one (a kernel with netfilter built in and
    // no module files is the case the active check is for)
    String files = status.path("facts").path("files.iptables-nft").asText();
    java.nio.file.Path config = java.nio.file.Path.of("/proc/config.gz");
    boolean builtIn = false;
    if (java.nio.file.Files.exists(config)) {
      try (var in = new java.util.zip.GZIPInputStream(java.nio.file.Files.newInputStream(config))) {
        builtIn =
            new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                .lines()
                .anyMatch(l -> l.equals("CONFIG_NF_TABLES=y"));
      }
    }
    assertThat(files).startsWith(builtIn ? "available: " : "unknown: ");
    assertThat(after).as("the host's rules after the probe").isEqualTo(before);
  }

  /** Every rule set the host has, as its own tools print it, without the timestamped comments. */
  static Map<String, String> hostRules() throws Exception {
    Map<String, String> rules = new LinkedHashMap<>();
    List<List<String>> commands = new ArrayList<>();
    commands.add(List.of("/usr/sbin/iptables-legacy-save"));
    commands.add(List.of("/usr/sbin/iptables-nft-save"));
    commands.add(List.of("/usr/sbin/ip6tables-legacy-save"));
    commands.add(List.of("/usr/sbin/ip6tables-nft-save"));
    if (Files.isExecutable(Path.of("/usr/sbin/nft"))) {
      commands.add(List.of("/usr/sbin/nft", "list", "ruleset"));
    }
    for (List<String> c : commands) {
      if (!Files.isExecutable(Path.of(c.get(0)))) {
        continue;
      }
      Result r = run(c);
      assertThat(r.exit).as(String.join(" ", c) + ": " + r.err).isZero();
      rules.put(
          String.join(" ", c),
          r.out.lines().filter(l -> !l.startsWith("#")).collect(Collectors.joining("\n")));
    }
    return rules;
  }

  record Result(int exit, String out, String err) {}

  static Result run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT).start();
    p.getOutputStream().close();
    // the outputs here are small; read both before waiting
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish within 30s");
    }
    return new Result(p.exitValue(), out, err);
  }

  static long uid() throws IOException {
    return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
  }
}
