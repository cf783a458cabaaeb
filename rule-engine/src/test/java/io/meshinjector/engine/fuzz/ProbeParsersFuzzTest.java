package io.meshinjector.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.probe.CniChain;
import io.meshinjector.engine.probe.CniMeasurement;
import io.meshinjector.engine.probe.HostIptables;
import io.meshinjector.engine.probe.KernelModules;
import io.meshinjector.engine.probe.MalformedHostFile;
import io.meshinjector.engine.probe.NodeMeasurements;
import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.ProbeReport;
import io.meshinjector.engine.probe.ProbeVerdicts;
import io.meshinjector.engine.probe.RuntimeCni;
import io.meshinjector.engine.probe.RuntimeConfig;
import io.meshinjector.engine.probe.Selinux;
import io.meshinjector.fuzz.Fuzz;
import io.meshinjector.fuzz.JsonMutations;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The node probe's parsers over hostile text: each returns a value or a clean {@link
 * MalformedHostFile}, and the verdicts built from what they return still come out, every capability
 * with a verdict and a reason.
 */
class ProbeParsersFuzzTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final ProbeOptions OPTIONS = ProbeOptions.defaults();
  static final HostIptables UBUNTU =
      new HostIptables(
          "nft",
          "/usr/sbin/iptables -> /etc/alternatives/iptables",
          Set.copyOf(HostIptables.BINARIES),
          null);

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** The verdicts from the measurements must always be whole: a verdict and a reason each. */
  static void assertWhole(NodeMeasurements m) {
    ProbeReport report = ProbeVerdicts.report(m, OPTIONS, Instant.EPOCH);
    for (CapabilityKey key :
        List.of(CapabilityKey.IPTABLES_LEGACY, CapabilityKey.IPTABLES_NFT, CapabilityKey.CNI)) {
      assertThat(report.status().capabilities()).containsKey(key);
      assertThat(report.status().facts().get("reason." + key.id())).isNotBlank();
    }
  }

  static NodeMeasurements node(String osRelease, KernelModules modules, CniMeasurement cni) {
    return new NodeMeasurements(
        osRelease, null, "6.1.0", null, modules, null, UBUNTU, null, cni, "enforcing", Map.of());
  }

  static final KernelModules SOME_MODULES =
      new KernelModules(Set.of("nf_tables"), null, Set.of(), null, Set.of("ip_tables"), null);

  @Test
  void osRelease() {
    Fuzz.target(
            "os-release",
            List.of(
                utf8(
                    "NAME=\"Red Hat Enterprise Linux\"\nID=\"rhel\"\nVERSION_ID=\"8.10\"\n"
                        + "PRETTY_NAME=\"Red Hat Enterprise Linux 8.10 (Ootpa)\"\n# c\n"),
                utf8("ID=ubuntu\nVERSION_ID='22.04'\nPRETTY_NAME=\"Ubuntu \\\"22.04\\\"\"\n")))
        .dictionary(List.of("=", "\"", "'", "\\", "#", "ID", "VERSION_ID", "PRETTY_NAME"))
        .run(
            in -> {
              Map<String, String> fields = io.meshinjector.engine.probe.OsRelease.parse(text(in));
              assertThat(io.meshinjector.engine.probe.OsRelease.summary(fields)).isNotNull();
              assertWhole(node(text(in), SOME_MODULES, new CniMeasurement.Failed("n/a")));
              assertThat(Selinux.fromConfig(text(in))).isNotNull();
              assertThat(Selinux.fromEnforce(text(in))).isNotNull();
            });
  }

  @Test
  void procModulesAndModuleLists() {
    Fuzz.target(
            "proc-modules",
            List.of(
                utf8(
                    "nf_tables 245760 1 nft_chain_nat, Live 0xffffffffc0a1b000\n"
                        + "ip_tables 32768 0 - Live 0x0000000000000000\n"),
                utf8("kernel/net/ipv4/netfilter/ip_tables.ko.xz: kernel/net/x_tables.ko.xz\n"),
                utf8("kernel/net/netfilter/nf_tables.ko\n# comment\n")))
        .dictionary(List.of(" ", "\t", ":", ".ko", ".ko.xz", "/", "-", "_", "Live"))
        .run(
            in -> {
              Set<String> loaded = KernelModules.parseProcModules(text(in));
              Set<String> listed = KernelModules.parseModuleList(text(in));
              KernelModules m = new KernelModules(loaded, null, listed, null, listed, null);
              assertWhole(node("ID=x", m, new CniMeasurement.Failed("n/a")));
              assertWhole(
                  node(
                      "ID=x",
                      KernelModules.withoutRelease(loaded, null, "no release"),
                      new CniMeasurement.Failed("n/a")));
            });
  }

  static final String CALICO =
      """
      {"name": "k8s-pod-network", "cniVersion": "0.3.1", "plugins": [
        {"type": "calico", "ipam": {"type": "calico-ipam"}},
        {"type": "portmap", "snat": true, "capabilities": {"portMappings": true}},
        {"name": "linkerd-cni", "type": "linkerd-cni", "log_level": "info",
         "linkerd": {"incoming-proxy-port": 4143, "outgoing-proxy-port": 4140,
           "proxy-uid": 2102, "ports-to-redirect": [], "inbound-ports-to-ignore": ["4191"],
           "iptables-mode": "nft", "ipv6": false}}]}
      """;

  @Test
  void cniConflists() {
    RuntimeCni runtime = RuntimeCni.containerdDefaults(OPTIONS);
    Fuzz.target(
            "cni-conflist",
            List.of(
                utf8(CALICO),
                utf8("{\"cniVersion\": \"0.3.1\", \"type\": \"linkerd-cni\", \"linkerd\": {}}")))
        .structural(new JsonMutations(JSON, JSON))
        .run(
            in -> {
              JsonNode config;
              try {
                config = CniChain.parse("/etc/cni/net.d/10-calico.conflist", text(in));
              } catch (MalformedHostFile e) {
                assertThat(e.getMessage()).startsWith("/etc/cni/net.d/10-calico.conflist is not");
                return;
              }
              JsonNode plugin = CniChain.find(config, OPTIONS.cniPluginType());
              CniChain chain = new CniChain("10-calico.conflist", plugin, null);
              assertWhole(
                  node(
                      "ID=x",
                      SOME_MODULES,
                      new CniMeasurement.Measured(
                          runtime,
                          chain,
                          CniMeasurement.BinaryLookup.at("/opt/cni/bin/linkerd-cni"))));
            });
  }

  static final String CONTAINERD =
      """
      version = 2
      root = "/var/lib/containerd"
      imports = ["/etc/containerd/conf.d/*.toml"]
      [plugins]
        [plugins."io.containerd.grpc.v1.cri"]
          sandbox_image = "registry.k8s.io/pause:3.9"
          [plugins."io.containerd.grpc.v1.cri".cni]
            bin_dir = "/opt/cni/bin"
            conf_dir = "/etc/cni/net.d"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = true # cgroup v2
      [plugins.'io.containerd.cri.v1.runtime'.cni]
        bin_dirs = ['/usr/local/lib/cni', "/opt/cni/bin",]
      [[proxy_plugins]]
        name = "x"
        settings = { address = "/run/x.sock", nested.key = 'v' }
      when = 1979-05-27T07:32:00Z
      big = 0x7fffffff
      f = 6.626e-34
      """;

  static final String CRIO =
      """
      [crio]
      [crio.network]
      network_dir = "/etc/cni/net.d/"
      plugin_dirs = [
        "/usr/libexec/cni/",
        "/opt/cni/bin/",
      ]
      """;

  @Test
  void containerdAndCrioToml() {
    Fuzz.target("runtime-toml", List.of(utf8(CONTAINERD), utf8(CRIO)))
        .dictionary(
            List.of(
                "[",
                "]",
                "[[",
                "]]",
                "=",
                "\"",
                "'",
                "\"\"\"",
                "'''",
                ".",
                "{",
                "}",
                ",",
                "#",
                "\\u",
                "\\U0010FFFF",
                "inf",
                "nan",
                "0x",
                "0o",
                "0b",
                "1979-05-27",
                "T",
                "Z"))
        .run(
            in -> {
              Map<String, Object> doc;
              try {
                doc = RuntimeConfig.parse("/etc/containerd/config.toml", text(in));
              } catch (MalformedHostFile e) {
                assertThat(e.getMessage())
                    .startsWith("/etc/containerd/config.toml is not valid TOML: ");
                return;
              }
              List<RuntimeCni.ConfigFile> files =
                  List.of(new RuntimeCni.ConfigFile("/etc/containerd/config.toml", doc));
              for (String pattern : RuntimeCni.containerdImports(doc)) {
                String path = RuntimeCni.importPath(pattern);
                RuntimeCni.importDir(path);
                RuntimeCni.matchesImport(path, "50-cni.toml");
              }
              for (RuntimeCni runtime :
                  List.of(RuntimeCni.containerd(OPTIONS, files), RuntimeCni.crio(OPTIONS, files))) {
                assertThat(runtime.confDir()).isNotNull();
                assertWhole(
                    node(
                        "ID=x",
                        SOME_MODULES,
                        new CniMeasurement.Measured(
                            runtime, new CniChain(null, null, null), null)));
              }
            });
  }
}
