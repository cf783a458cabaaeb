package io.meshinjector.webhook.probe;

import static io.meshinjector.engine.capability.CapabilityKey.CNI;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_LEGACY;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_NFT;
import static io.meshinjector.engine.capability.Verdict.ABSENT;
import static io.meshinjector.engine.capability.Verdict.AVAILABLE;
import static io.meshinjector.engine.capability.Verdict.READY;
import static io.meshinjector.engine.capability.Verdict.UNAVAILABLE;
import static io.meshinjector.webhook.probe.HostFixture.CONTAINERD_V2;
import static io.meshinjector.webhook.probe.HostFixture.linkerdPlugin;
import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.ProbeReport;
import java.nio.file.Path;
import java.time.Instant;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The cni verdict: chained, binary where the runtime looks, host binaries for its mode. */
class CniProbeTest {
  @TempDir Path root;

  private ProbeReport probe(HostFixture host) {
    return HostProbe.withKernelFallback(host.root, ProbeOptions.defaults(), null, null)
        .probe(Instant.parse("2026-11-20T10:00:00Z"));
  }

  @Test
  void linkerdChainedInCalicoWithBinaryInOptCniBinIsReady() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .containerdConfig(CONTAINERD_V2)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/calico")
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities())
        .containsEntry(CNI, READY)
        .containsEntry(IPTABLES_LEGACY, AVAILABLE)
        .containsEntry(IPTABLES_NFT, AVAILABLE);
    assertThat(report.status().facts())
        .containsEntry("containerRuntime", "containerd (/etc/containerd/config.toml)")
        .containsEntry("cniConfDir", "/etc/cni/net.d")
        .containsEntry("cniConf", "/etc/cni/net.d/10-calico.conflist")
        .containsEntry("cniBinDir", "/opt/cni/bin")
        .containsEntry("cniPluginBinary", "/opt/cni/bin/linkerd-cni")
        .containsEntry("cniIptablesMode", "nft")
        .containsEntry(
            "reason.cni",
            "linkerd-cni is chained in 10-calico.conflist, its binary is in place, and the host"
                + " has the binaries iptables-mode nft runs");
  }

  @Test
  void binaryOnlyInEtcCniBinWhileContainerdReadsOptCniBinIsAbsentWithTheFix() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .containerdConfig(CONTAINERD_V2)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .dir("/opt/cni/bin")
            .binary("/etc/cni/bin/calico")
            .binary("/etc/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, ABSENT);
    assertThat(report.status().facts())
        .containsEntry("cniBinDir", "/opt/cni/bin")
        .containsEntry("cniPluginBinary", "/etc/cni/bin/linkerd-cni (not read by the runtime)")
        .containsEntry("cniConf", "/etc/cni/net.d/10-calico.conflist");
    assertThat(report.status().facts().get("reason.cni"))
        .contains("linkerd-cni binary is in /etc/cni/bin but containerd reads /opt/cni/bin")
        .contains("destCNIBinDir");
  }

  @Test
  void rhel8WithIptablesModeNftButOnlyPlainIptablesIsAbsentAndNamesPlain() {
    HostFixture host =
        HostFixture.rhel810(root)
            .containerdConfig(CONTAINERD_V2)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities())
        .containsEntry(CNI, ABSENT)
        .containsEntry(IPTABLES_LEGACY, UNAVAILABLE)
        .containsEntry(IPTABLES_NFT, AVAILABLE);
    assertThat(report.status().facts())
        .containsEntry("hostBinaries", "iptables,iptables-save")
        .containsEntry("hostIptables", "nft")
        .containsEntry("cniIptablesMode", "nft")
        .containsEntry("cniPluginBinary", "/opt/cni/bin/linkerd-cni")
        .containsEntry(
            "reason.cni",
            "linkerd-cni iptables-mode nft runs iptables-nft, iptables-nft-save on the host,"
                + " which lacks iptables-nft, iptables-nft-save (pod sandboxes fail with"
                + " \"exit status 127\"): set the CNI's iptablesMode to plain");
    assertThat(report.findings()).anyMatch(f -> f.startsWith("cni: absent - "));
  }

  record ModeRow(
      String name,
      UnaryOperator<HostFixture> node,
      String modeInConf,
      Verdict cni,
      String modeFact,
      String reason) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> modes() {
    UnaryOperator<HostFixture> rhel = h -> HostFixture.rhel810(h.root);
    UnaryOperator<HostFixture> ubuntu = h -> HostFixture.ubuntu2204(h.root);
    UnaryOperator<HostFixture> centos = h -> HostFixture.centos7(h.root);
    return Stream.of(
            new ModeRow("RHEL 8, plain", rhel, "plain", READY, "plain", "iptables-mode plain runs"),
            new ModeRow(
                "RHEL 8, no mode: linkerd-cni defaults to legacy",
                rhel,
                null,
                ABSENT,
                "legacy (default)",
                "lacks iptables-legacy, iptables-legacy-save"),
            new ModeRow(
                "Ubuntu, no mode", ubuntu, null, READY, "legacy (default)", "iptables-mode legacy"),
            new ModeRow("Ubuntu, auto", ubuntu, "auto", READY, "auto", "iptables-mode auto runs"),
            new ModeRow(
                "RHEL 8, auto finds neither pair",
                rhel,
                "auto",
                ABSENT,
                "auto",
                "set the CNI's iptablesMode to plain"),
            new ModeRow(
                "CentOS 7, nft",
                centos,
                "nft",
                ABSENT,
                "nft",
                "set the CNI's iptablesMode to plain"),
            new ModeRow(
                "Ubuntu, a mode linkerd-cni rejects",
                ubuntu,
                "fancy",
                ABSENT,
                "fancy",
                "iptables-mode 'fancy', which it rejects"))
        .map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void checksTheHostBinariesOfTheConfiguredMode(ModeRow row) {
    HostFixture host =
        row.node()
            .apply(new HostFixture(root))
            .calicoConflist("10-calico.conflist", linkerdPlugin(row.modeInConf()))
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, row.cni());
    assertThat(report.status().facts())
        .containsEntry("cniIptablesMode", row.modeFact())
        .containsEntry("cniPluginBinary", "/opt/cni/bin/linkerd-cni")
        .containsEntry("containerRuntime", "containerd (defaults, no /etc/containerd/config.toml)");
    assertThat(report.status().facts().get("reason.cni")).contains(row.reason());
  }

  @Test
  void pluginChainedOnlyInALaterFileIsNeverCalled() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .calicoConflist("10-calico.conflist", null)
            .calicoConflist("20-calico-linkerd.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, ABSENT);
    assertThat(report.status().facts())
        .containsEntry("cniConf", "/etc/cni/net.d/10-calico.conflist")
        .doesNotContainKey("cniPluginBinary");
    assertThat(report.status().facts().get("reason.cni"))
        .isEqualTo(
            "linkerd-cni is chained in 20-calico-linkerd.conflist but containerd only uses the"
                + " first config, 10-calico.conflist: chain it there or remove the stale file");
  }

  @Test
  void notChainedMeansTheMeshCniIsNotInstalledHereYet() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .calicoConflist("10-calico.conflist", null)
            .file("/etc/cni/net.d/calico-kubeconfig", "apiVersion: v1\n")
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, ABSENT);
    assertThat(report.status().facts())
        .containsEntry("cniConf", "/etc/cni/net.d/10-calico.conflist");
    assertThat(report.status().facts().get("reason.cni"))
        .contains("linkerd-cni is not chained in 10-calico.conflist");
  }

  @Test
  void emptyConfDirMeansNoNetworkPluginYet() {
    HostFixture host = HostFixture.ubuntu2204(root).dir("/etc/cni/net.d");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, ABSENT);
    assertThat(report.status().facts()).containsEntry("cniConf", "none");
    assertThat(report.status().facts().get("reason.cni"))
        .contains("no CNI network config in /etc/cni/net.d");
  }

  @Test
  void containerd2BinDirsAreSearchedInOrder() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .containerdConfig(
                """
                version = 3
                [plugins.'io.containerd.cri.v1.runtime'.cni]
                  bin_dirs = [
                    '/usr/local/lib/cni',  # vendor plugins
                    '/opt/cni/bin',
                  ]
                  conf_dir = '/etc/cni/net.d'
                """)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .dir("/usr/local/lib/cni")
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, READY);
    assertThat(report.status().facts())
        .containsEntry("cniBinDir", "/usr/local/lib/cni,/opt/cni/bin")
        .containsEntry("cniPluginBinary", "/opt/cni/bin/linkerd-cni");
  }

  @Test
  void containerdImportOverridesTheBinDir() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .containerdConfig(
                "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n"
                    + CONTAINERD_V2.replace("version = 2\n", ""))
            .file(
                "/etc/containerd/conf.d/50-cni.toml",
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".cni]\nbin_dir = \"/etc/cni/bin\"\n")
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/etc/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, READY);
    assertThat(report.status().facts())
        .containsEntry("cniBinDir", "/etc/cni/bin")
        .containsEntry(
            "containerRuntime",
            "containerd (/etc/containerd/config.toml, /etc/containerd/conf.d/50-cni.toml)");
  }

  @Test
  void crioPluginDirsFromADropIn() {
    HostFixture host =
        HostFixture.rhel810(root)
            .file(
                "/etc/crio/crio.conf",
                "[crio]\n[crio.network]\nnetwork_dir = \"/etc/cni/net.d/\"\n")
            .file(
                "/etc/crio/crio.conf.d/10-cni.conf",
                "[crio.network]\nplugin_dirs = [\"/usr/libexec/cni/\", \"/opt/cni/bin/\"]\n")
            .calicoConflist("10-calico.conflist", linkerdPlugin("plain"))
            .binary("/usr/libexec/cni/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, READY);
    assertThat(report.status().facts())
        .containsEntry(
            "containerRuntime", "cri-o (/etc/crio/crio.conf, /etc/crio/crio.conf.d/10-cni.conf)")
        .containsEntry("cniBinDir", "/usr/libexec/cni,/opt/cni/bin")
        .containsEntry("cniConfDir", "/etc/cni/net.d")
        .containsEntry("cniPluginBinary", "/usr/libexec/cni/linkerd-cni")
        .containsEntry("cniIptablesMode", "plain");
  }

  @Test
  void anotherPluginTypeIsCheckedWithoutAnIptablesMode() {
    HostFixture host =
        HostFixture.rhel810(root)
            .calicoConflist(
                "10-calico.conflist", "{\"type\": \"istio-cni\", \"log_level\": \"info\"}")
            .binary("/opt/cni/bin/istio-cni");

    ProbeReport report =
        HostProbe.withKernelFallback(
                host.root, ProbeOptions.defaults().withCniPluginType("istio-cni"), null, null)
            .probe(Instant.EPOCH);

    assertThat(report.status().capabilities()).containsEntry(CNI, READY);
    assertThat(report.status().facts())
        .containsEntry("cniIptablesMode", "not configured by istio-cni")
        .containsEntry("cniPluginBinary", "/opt/cni/bin/istio-cni");
  }

  @Test
  void runtimeConfDirOutsideTheMountsIsUnknownNotAbsent() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .containerdConfig(
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".cni]\n"
                    + "conf_dir = \"/var/lib/rancher/rke2/agent/etc/cni/net.d\"\n")
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"));

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, Verdict.UNKNOWN);
    assertThat(report.status().facts())
        .containsEntry("cniConfDir", "/var/lib/rancher/rke2/agent/etc/cni/net.d")
        .containsEntry("cniBinDir", "/opt/cni/bin");
    assertThat(report.status().facts().get("reason.cni"))
        .contains(
            "containerd reads it instead of /etc/cni/net.d; add {path:"
                + " /var/lib/rancher/rke2/agent/etc/cni/net.d, type: \"\"} to the chart's"
                + " probe.extraHostPaths");
  }

  static final String RKE2_BIN = "/var/lib/rancher/rke2/data/current/bin";

  private static HostFixture rke2(Path root) {
    return HostFixture.ubuntu2204(root)
        .containerdConfig(
            "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".cni]\n"
                + "bin_dir = \""
                + RKE2_BIN
                + "\"\nconf_dir = \"/etc/cni/net.d\"\n")
        .calicoConflist("10-calico.conflist", linkerdPlugin("nft"));
  }

  @Test
  void runtimeBinDirOutsideTheMountsIsUnknownNotAbsent() {
    // RKE2's containerd reads plugins from its data dir, which the chart does not mount
    HostFixture host = rke2(root).dir("/opt/cni/bin");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, Verdict.UNKNOWN);
    assertThat(report.status().facts())
        .containsEntry("cniBinDir", RKE2_BIN)
        .containsEntry(
            "cniPluginBinary", "unknown (" + RKE2_BIN + " is not visible under the host root)");
    assertThat(report.status().facts().get("reason.cni"))
        .isEqualTo(
            "cannot check the linkerd-cni binary: containerd's CNI bin dir "
                + RKE2_BIN
                + " is not visible under the host root (/etc/containerd/config.toml); add {path: "
                + RKE2_BIN
                + ", type: \"\"} to the chart's probe.extraHostPaths");
  }

  @Test
  void runtimeBinDirOnceMountedGivesTheUsualVerdicts(@TempDir Path other) {
    ProbeReport missing = probe(rke2(root).dir(RKE2_BIN));
    assertThat(missing.status().capabilities()).containsEntry(CNI, ABSENT);
    assertThat(missing.status().facts()).containsEntry("cniPluginBinary", "missing");
    assertThat(missing.status().facts().get("reason.cni"))
        .contains("linkerd-cni is chained but its binary is not in " + RKE2_BIN);

    ProbeReport installed = probe(rke2(other).binary(RKE2_BIN + "/linkerd-cni"));
    assertThat(installed.status().capabilities()).containsEntry(CNI, READY);
    assertThat(installed.status().facts())
        .containsEntry("cniPluginBinary", RKE2_BIN + "/linkerd-cni");
  }

  @Test
  void crioBinDirOutsideTheMountsIsUnknownEvenWithTheBinaryInOptCniBin() {
    // the binary in /opt/cni/bin may be a leftover: whether /usr/libexec/cni has it is unknown
    HostFixture host =
        HostFixture.rhel810(root)
            .file("/etc/crio/crio.conf", "[crio.network]\nplugin_dirs = [\"/usr/libexec/cni\"]\n")
            .calicoConflist("10-calico.conflist", linkerdPlugin("plain"))
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, Verdict.UNKNOWN);
    assertThat(report.status().facts())
        .containsEntry(
            "cniPluginBinary",
            "unknown (/usr/libexec/cni is not visible under the host root; found"
                + " /opt/cni/bin/linkerd-cni, not read by the runtime)");
    assertThat(report.status().facts().get("reason.cni"))
        .contains("cri-o's CNI bin dir /usr/libexec/cni is not visible under the host root")
        .contains("add {path: /usr/libexec/cni, type: \"\"} to the chart's probe.extraHostPaths");
  }

  @Test
  void oneVisibleBinDirWithTheBinaryIsEnoughWhenAnotherIsNotMounted() {
    HostFixture host =
        HostFixture.rhel810(root)
            .file(
                "/etc/crio/crio.conf",
                "[crio.network]\nplugin_dirs = [\"/usr/libexec/cni\", \"/opt/cni/bin\"]\n")
            .calicoConflist("10-calico.conflist", linkerdPlugin("plain"))
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, READY);
    assertThat(report.status().facts())
        .containsEntry("cniPluginBinary", "/opt/cni/bin/linkerd-cni");
  }

  @Test
  void linkerdEntryWithoutItsSectionIsCheckedAsLegacy() {
    // linkerd-cni reads a missing "linkerd" section as zero values: iptables-mode "" is legacy
    HostFixture rhel =
        HostFixture.rhel810(root)
            .calicoConflist("10-calico.conflist", HostFixture.linkerdPluginWithoutSection())
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(rhel);

    assertThat(report.status().capabilities()).containsEntry(CNI, ABSENT);
    assertThat(report.status().facts())
        .containsEntry("cniIptablesMode", "legacy (default, no linkerd section)");
    assertThat(report.status().facts().get("reason.cni"))
        .isEqualTo(
            "linkerd-cni iptables-mode legacy runs iptables-legacy, iptables-legacy-save on the"
                + " host, which lacks iptables-legacy, iptables-legacy-save (pod sandboxes fail"
                + " with \"exit status 127\"): set the CNI's iptablesMode to plain");
  }

  @Test
  void linkerdEntryWithoutItsSectionIsReadyWhereLegacyBinariesExist(@TempDir Path other) {
    HostFixture ubuntu =
        HostFixture.ubuntu2204(other)
            .calicoConflist("10-calico.conflist", HostFixture.linkerdPluginWithoutSection())
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(ubuntu);

    assertThat(report.status().capabilities()).containsEntry(CNI, READY);
    assertThat(report.status().facts())
        .containsEntry("cniIptablesMode", "legacy (default, no linkerd section)");
    assertThat(report.status().facts().get("reason.cni")).contains("iptables-mode legacy runs");
  }

  @Test
  void linkerdSectionThatIsNotAnObjectIsAbsent() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .calicoConflist(
                "10-calico.conflist", "{\"type\": \"linkerd-cni\", \"linkerd\": \"nft\"}")
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, ABSENT);
    assertThat(report.status().facts().get("reason.cni"))
        .contains("\"linkerd\" section in 10-calico.conflist is not a JSON object");
  }
}
