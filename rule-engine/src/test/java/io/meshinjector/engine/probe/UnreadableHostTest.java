package io.meshinjector.engine.probe;

import static io.meshinjector.engine.capability.CapabilityKey.CNI;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_LEGACY;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_NFT;
import static io.meshinjector.engine.capability.Verdict.AVAILABLE;
import static io.meshinjector.engine.capability.Verdict.UNKNOWN;
import static io.meshinjector.engine.probe.HostFixture.RHEL_KERNEL;
import static io.meshinjector.engine.probe.HostFixture.linkerdPlugin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Missing, unreadable or malformed host files give unknown with the reason, never a throw. */
class UnreadableHostTest {
  @TempDir Path root;

  private ProbeReport probe(HostFixture host) {
    return new HostProbe(host.root).probe(Instant.parse("2026-11-20T10:00:00Z"));
  }

  @Test
  void anEmptyHostRootIsUnknownEverywhere() {
    ProbeReport report = probe(new HostFixture(root));

    assertThat(report.status().capabilities())
        .containsEntry(IPTABLES_LEGACY, UNKNOWN)
        .containsEntry(IPTABLES_NFT, UNKNOWN)
        .containsEntry(CNI, UNKNOWN);
    assertThat(report.status().facts())
        .containsEntry("os", "unknown (/etc/os-release does not exist (/etc is missing))")
        .containsEntry(
            "kernel", "unknown (/proc/sys/kernel/osrelease does not exist (/proc is missing))")
        .containsEntry("loadedModules", "unknown (/proc/modules does not exist (/proc is missing))")
        .containsEntry("hostIptables", "absent")
        .containsEntry(
            "hostBinaries", "unknown (neither /usr/sbin nor /sbin is visible under the host root)")
        .containsEntry("missingModules", "");
    assertThat(report.status().facts().get("reason.iptables-legacy"))
        .isEqualTo(
            "cannot tell which modules are loaded: /proc/modules does not exist (/proc is missing)");
    assertThat(report.status().facts().get("reason.iptables-nft"))
        .startsWith("nf_tables not found where readable; cannot read: /proc/modules");
    assertThat(report.status().facts().get("reason.cni")).contains("/etc/cni/net.d does not exist");
  }

  @Test
  void procModulesThatIsNotAFileLeavesLegacyUnknownButTheTreeStillShowsNft() {
    HostFixture host = HostFixture.rhel810(root);
    Path modules = host.at("/proc/modules");
    try {
      Files.delete(modules);
      Files.createDirectory(modules);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities())
        .containsEntry(IPTABLES_LEGACY, UNKNOWN)
        .containsEntry(IPTABLES_NFT, AVAILABLE);
    assertThat(report.status().facts())
        .containsEntry("loadedModules", "unknown (/proc/modules is a directory)")
        .containsEntry(
            "reason.iptables-legacy",
            "cannot tell which modules are loaded: /proc/modules is a directory")
        .containsEntry("missingModules", "");
  }

  @Test
  void withoutModulesBuiltinAnUnloadedModuleMightStillBeBuiltIn() {
    HostFixture host = HostFixture.rhel810(root);
    host.at("/lib/modules/" + RHEL_KERNEL + "/modules.builtin").toFile().delete();

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities())
        .containsEntry(IPTABLES_LEGACY, UNKNOWN)
        .containsEntry(IPTABLES_NFT, AVAILABLE);
    assertThat(report.status().facts())
        .containsEntry(
            "builtinModules",
            "unknown (/lib/modules/" + RHEL_KERNEL + "/modules.builtin does not exist)");
    assertThat(report.status().facts().get("reason.iptables-legacy"))
        .startsWith("ip_tables, iptable_nat not loaded, and whether it is built in cannot be read");
  }

  @Test
  void withoutTheKernelReleaseOnlyLoadedModulesCount() {
    HostFixture host = HostFixture.centos7(root);
    host.at("/proc/sys/kernel/osrelease").toFile().delete();

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities())
        .containsEntry(IPTABLES_LEGACY, AVAILABLE)
        .containsEntry(IPTABLES_NFT, UNKNOWN);
    assertThat(report.status().facts())
        .containsEntry("kernel", "unknown (/proc/sys/kernel/osrelease does not exist)")
        .containsEntry("os", "centos 7");
    assertThat(report.status().facts().get("reason.iptables-nft"))
        .contains("kernel release unknown");
  }

  @Test
  void malformedContainerdConfigIsUnknownWithTheLine() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .containerdConfig(
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".cni\nbin_dir = 1\n")
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, UNKNOWN);
    assertThat(report.status().facts().get("containerRuntime"))
        .startsWith("unknown (/etc/containerd/config.toml is not valid TOML: line 2:");
    assertThat(report.status().facts().get("reason.cni"))
        .startsWith("cannot read the container runtime's CNI settings:");
  }

  @Test
  void malformedActiveConflistIsUnknown() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .file("/etc/cni/net.d/10-calico.conflist", "{\"plugins\": [ {\"type\": \"calico\"}, ")
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, UNKNOWN);
    assertThat(report.status().facts().get("cniConf"))
        .startsWith("unknown (/etc/cni/net.d/10-calico.conflist is not valid JSON");
    assertThat(report.status().facts().get("reason.cni"))
        .startsWith(
            "cannot read the CNI config: /etc/cni/net.d/10-calico.conflist is not valid JSON");
  }

  @Test
  void aLinkLoopIsReportedNotFollowedForever() {
    HostFixture host = HostFixture.ubuntu2204(root);
    host.at("/etc/alternatives/iptables").toFile().delete();
    host.link("/etc/alternatives/iptables", "/usr/sbin/iptables");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities())
        .containsEntry(IPTABLES_LEGACY, AVAILABLE)
        .containsEntry(IPTABLES_NFT, AVAILABLE);
    assertThat(report.status().facts())
        .containsEntry("hostIptables", "unknown")
        .containsEntry("hostIptablesLink", "/usr/sbin/iptables: too many levels of symbolic links")
        .containsEntry(
            "hostBinaries", "unknown (/usr/sbin/iptables: too many levels of symbolic links)");
  }

  @Test
  void unreadableConflistIsPermissionDenied() throws Exception {
    assumeThat(System.getProperty("user.name")).as("root reads every file").isNotEqualTo("root");
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/linkerd-cni");
    Files.setPosixFilePermissions(
        host.at("/etc/cni/net.d/10-calico.conflist"), PosixFilePermissions.fromString("---------"));

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, UNKNOWN);
    assertThat(report.status().facts().get("reason.cni"))
        .contains("/etc/cni/net.d/10-calico.conflist: permission denied");
  }

  @Test
  void absoluteLinksStayInsideTheHostRoot() throws Exception {
    // /etc/os-release -> /usr/lib/os-release must read the node's file, not the probe image's
    HostFixture host =
        new HostFixture(root)
            .file("/usr/lib/os-release", "ID=rocky\nVERSION_ID=\"9.4\"\n")
            .link("/etc/os-release", "/usr/lib/os-release")
            .link("/usr/sbin/iptables", "/etc/passwd");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(IPTABLES_LEGACY, UNKNOWN);
    assertThat(report.status().facts())
        .containsEntry("os", "rocky 9.4")
        .containsEntry("hostIptables", "absent");
  }
}
