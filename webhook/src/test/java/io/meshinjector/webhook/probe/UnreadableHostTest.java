package io.meshinjector.webhook.probe;

import static io.meshinjector.engine.capability.CapabilityKey.CNI;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_LEGACY;
import static io.meshinjector.engine.capability.CapabilityKey.IPTABLES_NFT;
import static io.meshinjector.engine.capability.Verdict.AVAILABLE;
import static io.meshinjector.engine.capability.Verdict.UNKNOWN;
import static io.meshinjector.webhook.probe.HostFixture.RHEL_KERNEL;
import static io.meshinjector.webhook.probe.HostFixture.linkerdPlugin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.ProbeReport;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Missing, unreadable or malformed host files give unknown with the reason, never a throw. */
class UnreadableHostTest {
  @TempDir Path root;

  private ProbeReport probe(HostFixture host) {
    return HostProbe.withKernelFallback(host.root, ProbeOptions.defaults(), null, null)
        .probe(Instant.parse("2026-11-20T10:00:00Z"));
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
            "unknown (/lib/modules/"
                + RHEL_KERNEL
                + "/modules.builtin does not exist; /proc/config.gz does not exist)");
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
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/linkerd-cni");
    Files.setPosixFilePermissions(
        host.at("/etc/cni/net.d/10-calico.conflist"), PosixFilePermissions.fromString("---------"));

    Map<String, String> report = WithoutFileOverride.probe(host.root);

    assertThat(report).containsEntry("capability.cni", UNKNOWN.name());
    assertThat(report.get("reason.cni"))
        .contains("/etc/cni/net.d/10-calico.conflist: permission denied");
  }

  @Test
  void aFileWhereADirectoryShouldBeIsUnknownNotMissing() throws Exception {
    // a stat through a regular file fails with ENOTDIR, whoever runs the probe, root included
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .file("/opt/cni/bin", "not a directory");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(CNI, UNKNOWN);
    assertThat(report.status().facts().get("reason.cni"))
        .isEqualTo(
            "cannot check the linkerd-cni binary: /opt/cni/bin/linkerd-cni: cannot check it,"
                + " /opt/cni/bin is not a directory");
    assertThat(report.status().facts().get("cniPluginBinary")).doesNotContain("does not exist");
  }

  @Test
  void procAsAFileLeavesModulesUnknownWithoutClaimingTheyAreMissing() throws Exception {
    HostFixture host = HostFixture.rhel810(root);
    Path proc = host.at("/proc");
    deleteTree(proc);
    Files.writeString(proc, "");

    ProbeReport report = probe(host);

    assertThat(report.status().capabilities()).containsEntry(IPTABLES_LEGACY, UNKNOWN);
    assertThat(report.status().facts())
        .containsEntry(
            "loadedModules", "unknown (/proc/modules: cannot check it, /proc is not a directory)");
  }

  /** Denies the stat of one host path, as a 0700 parent dir does for uid 65534. */
  private static HostRoot denying(Path root, String hostPath) {
    Path denied = root.toAbsolutePath().normalize().resolve(hostPath.substring(1));
    return new HostRoot(
        root,
        path -> {
          if (path.equals(denied)) {
            throw new AccessDeniedException(path.toString());
          }
          return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        });
  }

  @Test
  void aDeniedStatIsNotMissing() {
    HostFixture host = HostFixture.ubuntu2204(root);
    HostRoot hostRoot = denying(host.root, "/etc/cni");

    assertThatThrownBy(() -> hostRoot.resolve("/etc/cni/net.d"))
        .isInstanceOfSatisfying(
            HostReadException.class, e -> assertThat(e.missing()).as("missing").isFalse())
        .hasMessage(
            "/etc/cni/net.d: cannot check it, /etc/cni: permission denied (run the probe as root"
                + " or relax the file's mode)");
    assertThatThrownBy(() -> hostRoot.resolve("/etc/containerd/config.toml"))
        .isInstanceOfSatisfying(
            HostReadException.class, e -> assertThat(e.missing()).as("missing").isTrue());
  }

  @Test
  void aDeniedCniBinDirIsUnknownNotAbsent() {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report =
        new HostProbe(
                denying(host.root, "/opt/cni/bin/linkerd-cni"), ProbeOptions.defaults(), null, null)
            .probe(Instant.EPOCH);

    assertThat(report.status().capabilities()).containsEntry(CNI, UNKNOWN);
    assertThat(report.status().facts().get("reason.cni"))
        .isEqualTo(
            "cannot check the linkerd-cni binary: /opt/cni/bin/linkerd-cni: permission denied"
                + " (run the probe as root or relax the file's mode)");
  }

  @Test
  void aDeniedContainerdConfigIsUnknownNotDefaults() {
    // read as missing, the probe would assume /opt/cni/bin and hide a runtime whose CNI binaries
    // are elsewhere
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .containerdConfig(HostFixture.CONTAINERD_V2)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/linkerd-cni");

    ProbeReport report =
        new HostProbe(denying(host.root, "/etc/containerd"), ProbeOptions.defaults(), null, null)
            .probe(Instant.EPOCH);

    assertThat(report.status().capabilities()).containsEntry(CNI, UNKNOWN);
    assertThat(report.status().facts().get("containerRuntime"))
        .startsWith("unknown (/etc/containerd/config.toml: cannot check it, /etc/containerd:")
        .contains("permission denied");
  }

  @Test
  void anUnsearchableDirIsPermissionDenied() throws Exception {
    HostFixture host =
        HostFixture.ubuntu2204(root)
            .calicoConflist("10-calico.conflist", linkerdPlugin("nft"))
            .binary("/opt/cni/bin/linkerd-cni");
    Files.setPosixFilePermissions(
        host.at("/etc/cni"), PosixFilePermissions.fromString("---------"));
    try {
      Map<String, String> report = WithoutFileOverride.probe(host.root);

      assertThat(report).containsEntry("capability.cni", UNKNOWN.name());
      // the kernel denies the look inside: net.d cannot be checked, which is not "absent"
      assertThat(report.get("reason.cni"))
          .contains("/etc/cni/net.d: permission denied")
          .doesNotContain("does not exist");
    } finally {
      // or @TempDir cannot clean up
      Files.setPosixFilePermissions(
          host.at("/etc/cni"), PosixFilePermissions.fromString("rwx------"));
    }
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
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
