package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.meshinjector.engine.probe.ActiveCheck;
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
 * The active check for real: the machine's own iptables-legacy and iptables-nft, their ip6tables
 * twins (Debian's {@code iptables} package) and nft (Debian's {@code nftables}; .ci/run installs
 * both), in new network namespaces made by util-linux's unshare, on this machine's kernel. Needs
 * root; skipped, saying why, otherwise.
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

  /** {@code probe --dry-run -o json --active-check} on an empty host root: its status. */
  JsonNode probeThisMachine() throws Exception {
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
    assertThat(code).as(err.toString()).isZero();
    JsonNode status = new ObjectMapper().readTree(out.toString()).path("status");
    System.out.println("active check on this machine: " + status.toPrettyString());
    return status;
  }

  @Test
  void bothBackendsAreAvailableOnThisKernelAndTheHostsRulesAreUntouched() throws Exception {
    Map<String, String> before = hostRules();

    JsonNode status = probeThisMachine();

    Map<String, String> after = hostRules();
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
    boolean builtIn = kernelConfig().contains("CONFIG_NF_TABLES=y");
    assertThat(files).startsWith(builtIn ? "available: " : "unknown: ");
    assertThat(after).as("the host's rules after the probe").isEqualTo(before);
  }

  /**
   * ip6tables-legacy, ip6tables-nft and nft as the init container would run them, in a new network
   * namespace each: the truth the probe's verdicts must match. The commands are written out here,
   * apart from the probe's scripts, with another chain, table and port.
   */
  static final Map<String, String> TRUTH =
      Map.of(
          "ip6tables-legacy",
          xtables("ip6tables-legacy"),
          "ip6tables-nft",
          xtables("ip6tables-nft"),
          "nftables",
          "nft 'add table inet rt_check; add chain inet rt_check out { type nat hook output"
              + " priority -100; }; add rule inet rt_check out meta l4proto tcp redirect to"
              + " :15001' && nft list table inet rt_check | grep -q 'redirect to :15001'");

  static String xtables(String b) {
    return b
        + " -w 5 -t nat -N RT_CHECK && "
        + b
        + " -w 5 -t nat -A RT_CHECK -p tcp -j REDIRECT --to-ports 15001 && "
        + b
        + "-save -t nat | grep -q -- '-A RT_CHECK -p tcp -j REDIRECT --to-ports 15001'";
  }

  /** Per key, the kernel options without which its files verdict cannot be available. */
  static final Map<String, List<String>> CONFIG =
      Map.of(
          "ip6tables-legacy",
          List.of(
              "CONFIG_IP6_NF_IPTABLES", "CONFIG_IP6_NF_NAT", "CONFIG_NETFILTER_XT_TARGET_REDIRECT"),
          "ip6tables-nft",
          List.of(
              "CONFIG_NF_TABLES",
              "CONFIG_NFT_NAT",
              "CONFIG_NFT_COMPAT",
              "CONFIG_NETFILTER_XT_TARGET_REDIRECT"),
          "nftables",
          List.of("CONFIG_NF_TABLES", "CONFIG_NFT_NAT", "CONFIG_NFT_REDIR"));

  @Test
  void ipv6AndNftVerdictsAreWhatTheToolsDoOnThisKernelAndTheHostsRulesAreUntouched()
      throws Exception {
    for (String b :
        List.of(
            "ip6tables-legacy",
            "ip6tables-legacy-save",
            "ip6tables-nft",
            "ip6tables-nft-save",
            "nft")) {
      Assumptions.assumeTrue(
          Files.isExecutable(SBIN.resolve(b)),
          SBIN.resolve(b)
              + " is missing: install Debian's iptables and nftables packages (apt-get install -y"
              + " iptables nftables; .ci/run does)");
    }
    Map<String, String> truth = new LinkedHashMap<>();
    Path lock = Files.createTempFile(host, "xtables", ".lock");
    for (Map.Entry<String, String> t : TRUTH.entrySet()) {
      Result r =
          run(
              List.of("unshare", "--net", "--", "/bin/sh", "-c", t.getValue()),
              Map.of("XTABLES_LOCKFILE", lock.toString()));
      truth.put(t.getKey(), r.exit == 0 ? "available" : "unavailable");
      System.out.println(
          "this kernel, " + t.getKey() + ": " + truth.get(t.getKey()) + " " + r.err.strip());
    }
    Map<String, String> before = hostRules();

    JsonNode status = probeThisMachine();

    Map<String, String> after = hostRules();
    String config = kernelConfig();
    for (String key : truth.keySet()) {
      assertThat(status.path("capabilities").path(key).asText())
          .as(key + ": " + status.path("facts").path("reason." + key).asText())
          .isEqualTo(truth.get(key));
      assertThat(status.path("sources").path(key).asText()).as(key).isEqualTo("active");
      // a kernel that carries its config and builds every part in: the files, read from the
      // probe's own /proc, agree with the tools
      if (CONFIG.get(key).stream().allMatch(o -> config.contains(o + "=y"))) {
        assertThat(status.path("facts").path("files." + key).asText())
            .as(key)
            .startsWith(truth.get(key) + ": ");
      }
    }
    assertThat(status.path("capabilities").has("ipv6-pods")).isFalse();
    assertThat(status.path("capabilities").has("os")).isFalse();
    assertThat(after).as("the host's rules after the probe").isEqualTo(before);
    assertThat(String.join("\n", after.values()))
        .doesNotContain(ActiveCheck.CHAIN)
        .doesNotContain(ActiveCheck.NFT_TABLE);
  }

  /** The running kernel's own config, {@code /proc/config.gz}, or empty where it has none. */
  static String kernelConfig() throws IOException {
    Path config = Path.of("/proc/config.gz");
    if (!Files.exists(config)) {
      return "";
    }
    try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(config))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Every rule set the host has, as its own tools print it, without the timestamped comments. */
  static Map<String, String> hostRules() throws Exception {
    Map<String, String> rules = new LinkedHashMap<>();
    List<List<String>> commands = new ArrayList<>();
    commands.add(List.of("/usr/sbin/iptables-legacy-save"));
    commands.add(List.of("/usr/sbin/iptables-nft-save"));
    commands.add(List.of("/usr/sbin/ip6tables-legacy-save"));
    commands.add(List.of("/usr/sbin/ip6tables-nft-save"));
    // stateless: without counters, which move with the host's own traffic between two reads
    commands.add(List.of("/usr/sbin/nft", "--stateless", "list", "ruleset"));
    for (List<String> c : commands) {
      if (!Files.isExecutable(Path.of(c.get(0)))) {
        continue;
      }
      Result r = run(c);
      assertThat(r.exit).as(String.join(" ", c) + ": " + r.err).isZero();
      // the save tools print each chain's packet and byte counters, which move likewise
      rules.put(
          String.join(" ", c),
          r.out
              .lines()
              .filter(l -> !l.startsWith("#"))
              .map(l -> l.replaceFirst(" \\[\\d+:\\d+\\]$", " [counters]"))
              .collect(Collectors.joining("\n")));
    }
    return rules;
  }

  record Result(int exit, String out, String err) {}

  static Result run(List<String> command) throws IOException, InterruptedException {
    return run(command, Map.of());
  }

  static Result run(List<String> command, Map<String, String> env)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT);
    pb.environment().putAll(env);
    Process p = pb.start();
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
