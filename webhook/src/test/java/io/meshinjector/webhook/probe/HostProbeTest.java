package io.meshinjector.webhook.probe;

import static io.meshinjector.engine.capability.CapabilityKey.CNI;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_LEGACY;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_NFT;
import static io.meshinjector.engine.capability.Verdict.AVAILABLE;
import static io.meshinjector.engine.capability.Verdict.UNAVAILABLE;
import static io.meshinjector.engine.capability.Verdict.UNKNOWN;
import static io.meshinjector.webhook.probe.HostFixture.CENTOS7_KERNEL;
import static io.meshinjector.webhook.probe.HostFixture.RHEL_KERNEL;
import static io.meshinjector.webhook.probe.HostFixture.UBUNTU_KERNEL;
import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.StatusReading;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.ProbeReport;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The kernel and iptables side of the probe, one fixture node per row. */
class HostProbeTest {
  static final Instant NOW = Instant.parse("2026-11-20T10:00:00Z");

  @TempDir Path root;

  static ProbeReport probe(HostFixture host) {
    return HostProbe.withKernelFallback(host.root, ProbeOptions.defaults(), null, null).probe(NOW);
  }

  static Map<String, String> facts(ProbeReport r) {
    return r.status().facts();
  }

  static Verdict verdict(ProbeReport r, CapabilityKey key) {
    return r.status().capabilities().get(key);
  }

  record Row(
      String name,
      Function<Path, HostFixture> node,
      Verdict legacy,
      Verdict nft,
      Map<String, String> facts,
      String legacyReason,
      String nftReason,
      Map<CapabilityKey, Verdict> ipv6AndNftables) {
    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * The new keys on these hosts: their module trees model the IPv4 question only (none lists
   * ip6_tables, ip6table_nat, nft_compat, xt_REDIRECT or nft_redir, and their modules.dep is all
   * the probe has to go by), so every one is unavailable here; Ipv6ProbeTest has hosts with the
   * trees their distributions really ship.
   */
  static final Map<CapabilityKey, Verdict> NONE =
      Map.of(
          CapabilityKey.IP6TABLES_LEGACY, UNAVAILABLE,
          CapabilityKey.IP6TABLES_NFT, UNAVAILABLE,
          CapabilityKey.NFTABLES, UNAVAILABLE);

  static Stream<Arguments> nodes() {
    return Stream.of(
            new Row(
                "RHEL 8.10: nft only",
                HostFixture::rhel810,
                UNAVAILABLE,
                AVAILABLE,
                Map.of(
                    "os", "rhel 8.10",
                    "osName", "Red Hat Enterprise Linux 8.10 (Ootpa)",
                    "kernel", RHEL_KERNEL,
                    "loadedModules", "nf_tables,nft_chain_nat,nft_compat,nf_nat,nf_conntrack",
                    "installedModules", "x_tables,ip_tables,iptable_nat",
                    "missingModules", "ip_tables,iptable_nat",
                    "hostIptables", "nft",
                    "hostIptablesLink", "/usr/sbin/iptables -> xtables-nft-multi",
                    "hostBinaries", "iptables,iptables-save",
                    "selinux", "enforcing (configured in /etc/selinux/config)"),
                "`modprobe ip_tables iptable_nat` on the node",
                "nf_tables is loaded",
                NONE),
            new Row(
                "CentOS 7: legacy only",
                HostFixture::centos7,
                AVAILABLE,
                UNAVAILABLE,
                Map.of(
                    "os", "centos 7",
                    "kernel", CENTOS7_KERNEL,
                    "loadedModules", "x_tables,ip_tables,iptable_filter,iptable_nat,nf_nat",
                    "missingModules", "nf_tables",
                    "hostIptables", "legacy",
                    "hostIptablesLink", "/usr/sbin/iptables -> xtables-multi",
                    "hostBinaries", "iptables,iptables-save",
                    "selinux", "not present (no /sys/fs/selinux/enforce, no /etc/selinux/config)"),
                "ip_tables and iptable_nat are loaded",
                "nf_tables is neither loaded, built in, nor in the module tree of kernel "
                    + CENTOS7_KERNEL,
                NONE),
            new Row(
                "Ubuntu 22.04: both",
                HostFixture::ubuntu2204,
                AVAILABLE,
                AVAILABLE,
                Map.of(
                    "os",
                    "ubuntu 22.04",
                    "kernel",
                    UBUNTU_KERNEL,
                    "loadedModules",
                    "x_tables,ip_tables,iptable_nat,nf_tables,nft_chain_nat,nf_nat,xt_REDIRECT,"
                        + "br_netfilter",
                    "missingModules",
                    "",
                    "hostIptables",
                    "nft",
                    "hostIptablesLink",
                    "/usr/sbin/iptables -> /etc/alternatives/iptables,"
                        + " /etc/alternatives/iptables -> /usr/sbin/iptables-nft,"
                        + " /usr/sbin/iptables-nft -> xtables-nft-multi",
                    "hostBinaries",
                    "iptables,iptables-legacy,iptables-legacy-save,iptables-nft,"
                        + "iptables-nft-save,iptables-save"),
                "ip_tables and iptable_nat are loaded",
                "nf_tables is loaded",
                NONE),
            new Row(
                "kernel with neither nat module",
                r ->
                    new HostFixture(r)
                        .osRelease("flatcar", "3815.2.0", "Flatcar Container Linux 3815.2.0")
                        .kernel("6.1.0-minimal")
                        .loaded("overlay", "veth")
                        .tree("6.1.0-minimal", "overlay", "veth", "bridge")
                        .builtin("6.1.0-minimal", "unix")
                        .mergedUsr(),
                UNAVAILABLE,
                UNAVAILABLE,
                Map.of(
                    "os", "flatcar 3815.2.0",
                    "loadedModules", "",
                    "builtinModules", "",
                    "installedModules", "",
                    "missingModules", "ip_tables,iptable_nat,nf_tables",
                    "hostIptables", "absent",
                    "hostIptablesLink", "no iptables in /usr/sbin or /sbin",
                    "hostBinaries", ""),
                "ip_tables, iptable_nat are not in the module tree either",
                "nf_tables is neither loaded, built in, nor in the module tree",
                NONE),
            new Row(
                "Debian 12 with nothing loaded: nft autoloads, legacy needs modprobe",
                r ->
                    new HostFixture(r)
                        .osRelease("debian", "12", "Debian GNU/Linux 12 (bookworm)")
                        .kernel("6.1.0-18-amd64")
                        .loaded("overlay")
                        .tree("6.1.0-18-amd64", "ip_tables", "iptable_nat", "nf_tables")
                        .builtin("6.1.0-18-amd64", "unix")
                        .mergedUsr()
                        .ubuntuIptables(),
                UNAVAILABLE,
                AVAILABLE,
                Map.of(
                    "loadedModules", "",
                    "installedModules", "ip_tables,iptable_nat,nf_tables",
                    "missingModules", "ip_tables,iptable_nat",
                    "hostIptables", "nft"),
                "a pod's init container cannot load kernel modules (\"iptables who? (do you need"
                    + " to insmod?)\")",
                "autoloaded on first use",
                NONE),
            new Row(
                "everything built into the kernel",
                r ->
                    new HostFixture(r)
                        .osRelease("talos", "1.7.0", "Talos (v1.7.0)")
                        .kernel("6.6.29-talos")
                        .loaded()
                        .tree("6.6.29-talos")
                        .builtin(
                            "6.6.29-talos", "x_tables", "ip_tables", "iptable_nat", "nf_tables")
                        .mergedUsr()
                        .binary("/usr/sbin/xtables-legacy-multi")
                        .link("/usr/sbin/iptables", "xtables-legacy-multi"),
                AVAILABLE,
                AVAILABLE,
                Map.of(
                    "builtinModules", "x_tables,ip_tables,iptable_nat,nf_tables",
                    "missingModules", "",
                    "hostIptables", "legacy",
                    "hostBinaries", "iptables"),
                "ip_tables and iptable_nat are built into kernel 6.6.29-talos",
                "nf_tables is built into kernel 6.6.29-talos",
                NONE))
        .map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void measuresKernelAndIptables(Row row) {
    ProbeReport report = probe(row.node().apply(root));

    assertThat(verdict(report, IPTABLES_LEGACY)).isEqualTo(row.legacy());
    assertThat(verdict(report, IPTABLES_NFT)).isEqualTo(row.nft());
    assertThat(facts(report)).containsAllEntriesOf(row.facts());
    assertThat(facts(report).get("reason.iptables-legacy")).contains(row.legacyReason());
    assertThat(facts(report).get("reason.iptables-nft")).contains(row.nftReason());
    assertThat(report.status().capabilities()).containsAllEntriesOf(row.ipv6AndNftables());
    for (CapabilityKey key : row.ipv6AndNftables().keySet()) {
      // an unavailable verdict names the module the files do not show
      assertThat(facts(report).get("reason." + key.id())).as(key.id()).contains(" neither ");
    }
    // these fixtures have no CNI config dir: the cni verdict must say so rather than guess
    assertThat(verdict(report, CNI)).isEqualTo(UNKNOWN);
    assertThat(facts(report).get("reason.cni")).contains("/etc/cni/net.d does not exist");
    assertThat(report.status().capabilities()).doesNotContainKey(CapabilityKey.NATIVE_SIDECAR);
    assertThat(report.findings())
        .anySatisfy(f -> assertThat(f).startsWith("iptables-legacy: " + row.legacy().id()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void statusSurvivesTheRoundTripTheRegistryReads(Row row) {
    NodeCapabilityStatus status = probe(row.node().apply(root)).status();

    StatusReading reading = StatusReading.of(status.toMap());
    assertThat(reading.problems()).isEmpty();
    NodeCapabilityStatus back = reading.status();

    assertThat(back.capabilities()).isEqualTo(status.capabilities());
    assertThat(back.facts()).isEqualTo(status.facts()).containsAllEntriesOf(row.facts());
    assertThat(back.observedAt()).isEqualTo(NOW);
  }

  @org.junit.jupiter.api.Test
  void rendersTheNodeCapabilityObject() {
    ProbeReport report = probe(HostFixture.rhel810(root));

    Map<String, Object> resource = report.toResource("rhel-1");

    assertThat(resource)
        .containsEntry("apiVersion", "mesh-injector.io/v1alpha1")
        .containsEntry("kind", "NodeCapability")
        .containsEntry("metadata", Map.of("name", "rhel-1"));
    @SuppressWarnings("unchecked")
    Map<String, Object> status = (Map<String, Object>) resource.get("status");
    assertThat(status)
        .containsEntry("observedAt", "2026-11-20T10:00:00Z")
        .containsEntry(
            "capabilities",
            Map.of(
                "iptables-legacy", "unavailable",
                "iptables-nft", "available",
                "cni", "unknown",
                "ip6tables-legacy", "unavailable",
                "ip6tables-nft", "unavailable",
                "nftables", "unavailable"));
    assertThat(status.get("facts"))
        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
        .containsEntry("hostIptables", "nft")
        .containsEntry("missingModules", "ip_tables,iptable_nat");
  }

  /**
   * The DaemonSet does not mount the host's /proc/modules (a kernel without loadable modules has
   * none, and a File hostPath would keep the pod from starting): the probe reads its own /proc.
   */
  @org.junit.jupiter.api.Test
  void readsTheModuleListFromItsOwnProcWhenTheHostRootHasNone(@TempDir Path own)
      throws java.io.IOException {
    HostFixture host = HostFixture.rhel810(root);
    java.nio.file.Files.delete(host.at("/proc/modules"));
    new HostFixture(own)
        .loaded("nft_chain_nat", "nf_nat", "nf_tables", "nft_compat", "nf_conntrack", "overlay");

    ProbeReport report =
        HostProbe.withKernelFallback(root, ProbeOptions.defaults(), null, own).probe(NOW);

    assertThat(verdict(report, IPTABLES_NFT)).isEqualTo(AVAILABLE);
    assertThat(verdict(report, IPTABLES_LEGACY)).isEqualTo(UNAVAILABLE);
    assertThat(facts(report))
        .containsEntry("loadedModules", "nf_tables,nft_chain_nat,nft_compat,nf_nat,nf_conntrack")
        .containsEntry("missingModules", "ip_tables,iptable_nat");
  }

  @org.junit.jupiter.api.Test
  void aKernelWithoutModulesAnywhereKeepsTheHostRootsReason(@TempDir Path own)
      throws java.io.IOException {
    HostFixture host = HostFixture.rhel810(root);
    java.nio.file.Files.delete(host.at("/proc/modules"));

    ProbeReport withFallback =
        HostProbe.withKernelFallback(root, ProbeOptions.defaults(), null, own).probe(NOW);
    ProbeReport without =
        HostProbe.withKernelFallback(root, ProbeOptions.defaults(), null, null).probe(NOW);

    assertThat(withFallback.status().capabilities()).isEqualTo(without.status().capabilities());
    assertThat(facts(withFallback).get("reason.iptables-legacy"))
        .isEqualTo(facts(without).get("reason.iptables-legacy"))
        .contains("/proc/modules");
  }

  /**
   * A kernel built without loadable modules (CONFIG_MODULES unset, netfilter built in, as on the
   * real node of the suite's RealNodeIT): no /proc/modules, no module tree, but its own config in
   * /proc/config.gz, read from the probe's own /proc, says both backends are there.
   */
  @org.junit.jupiter.api.Test
  void aKernelWithoutModulesIsReadFromItsOwnConfig(@TempDir Path own) throws java.io.IOException {
    HostFixture host = HostFixture.rhel810(root);
    java.nio.file.Files.delete(host.at("/proc/modules"));
    java.nio.file.Files.delete(host.at("/lib/modules/" + HostFixture.RHEL_KERNEL + "/modules.dep"));
    java.nio.file.Files.delete(
        host.at("/lib/modules/" + HostFixture.RHEL_KERNEL + "/modules.builtin"));
    Path config = java.nio.file.Files.createDirectories(own.resolve("proc")).resolve("config.gz");
    try (var out =
        new java.util.zip.GZIPOutputStream(java.nio.file.Files.newOutputStream(config))) {
      out.write(
          ("# CONFIG_MODULES is not set\nCONFIG_NETFILTER_XTABLES=y\nCONFIG_IP_NF_IPTABLES=y\n"
                  + "CONFIG_IP_NF_NAT=y\nCONFIG_NF_TABLES=y\nCONFIG_NFT_NAT=y\n"
                  + "CONFIG_NFT_COMPAT=m\n")
              .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    ProbeReport report =
        HostProbe.withKernelFallback(root, ProbeOptions.defaults(), null, own).probe(NOW);

    assertThat(verdict(report, IPTABLES_LEGACY)).isEqualTo(AVAILABLE);
    assertThat(verdict(report, IPTABLES_NFT)).isEqualTo(AVAILABLE);
    assertThat(facts(report).get("builtinModules"))
        .contains("ip_tables")
        .contains("iptable_nat")
        .contains("nf_tables")
        .doesNotContain("nft_compat");
    // nothing in this config is IPv6, and nft_compat is a module: with no module tree to show
    // what loads on demand, the files cannot tell the new keys
    for (CapabilityKey key :
        java.util.List.of(
            CapabilityKey.IP6TABLES_LEGACY, CapabilityKey.IP6TABLES_NFT, CapabilityKey.NFTABLES)) {
      assertThat(verdict(report, key)).as(key.id()).isEqualTo(UNKNOWN);
      assertThat(facts(report).get("reason." + key.id())).as(key.id()).contains("modules.dep");
    }
  }

  @org.junit.jupiter.api.Test
  void withoutAKernelConfigEitherTheBuiltInModulesStayUnknownAndSayWhy(@TempDir Path own)
      throws java.io.IOException {
    HostFixture host = HostFixture.rhel810(root);
    java.nio.file.Files.delete(host.at("/proc/modules"));
    java.nio.file.Files.delete(
        host.at("/lib/modules/" + HostFixture.RHEL_KERNEL + "/modules.builtin"));

    ProbeReport report =
        HostProbe.withKernelFallback(root, ProbeOptions.defaults(), null, own).probe(NOW);

    assertThat(facts(report).get("builtinModules"))
        .startsWith("unknown")
        .contains("modules.builtin")
        .contains("/proc/config.gz");
  }
}
