package io.meshinjector.webhook.probe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Builds a fake node file system under a temp dir, the way the probe sees it under /host. */
final class HostFixture {
  static final String RHEL_KERNEL = "4.18.0-553.el8_10.x86_64";
  static final String CENTOS7_KERNEL = "3.10.0-1160.el7.x86_64";
  static final String UBUNTU_KERNEL = "5.15.0-91-generic";

  final Path root;

  HostFixture(Path root) {
    this.root = root;
  }

  HostFixture file(String hostPath, String content) {
    Path p = at(hostPath);
    try {
      Files.createDirectories(p.getParent());
      Files.writeString(p, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  HostFixture dir(String hostPath) {
    try {
      Files.createDirectories(at(hostPath));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /** A symbolic link exactly as the host has it: absolute targets stay absolute. */
  HostFixture link(String hostPath, String target) {
    Path p = at(hostPath);
    try {
      Files.createDirectories(p.getParent());
      Files.createSymbolicLink(p, Path.of(target));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  HostFixture osRelease(String id, String versionId, String pretty) {
    return file(
        "/etc/os-release",
        "NAME=\""
            + pretty.split(" ")[0]
            + "\"\nID=\""
            + id
            + "\"\nVERSION_ID=\""
            + versionId
            + "\"\nPRETTY_NAME=\""
            + pretty
            + "\"\n");
  }

  HostFixture kernel(String release) {
    return file("/proc/sys/kernel/osrelease", release + "\n");
  }

  /** {@code /proc/modules} lines for the given module names. */
  HostFixture loaded(String... modules) {
    StringBuilder sb = new StringBuilder();
    for (String m : modules) {
      sb.append(m).append(" 16384 1 - Live 0x0000000000000000\n");
    }
    return file("/proc/modules", sb.toString());
  }

  /** {@code modules.dep} with an xz-compressed entry per module. */
  HostFixture tree(String kernel, String... modules) {
    StringBuilder sb = new StringBuilder();
    for (String m : modules) {
      sb.append("kernel/net/netfilter/").append(m).append(".ko.xz:\n");
    }
    return file("/lib/modules/" + kernel + "/modules.dep", sb.toString());
  }

  HostFixture builtin(String kernel, String... modules) {
    StringBuilder sb = new StringBuilder();
    for (String m : modules) {
      sb.append("kernel/net/netfilter/").append(m).append(".ko\n");
    }
    return file("/lib/modules/" + kernel + "/modules.builtin", sb.toString());
  }

  /** Merged /usr: /sbin is a relative link to usr/sbin, as on RHEL 8 and Ubuntu. */
  HostFixture mergedUsr() {
    return dir("/usr/sbin").link("/sbin", "usr/sbin");
  }

  HostFixture binary(String hostPath) {
    return file(hostPath, "\u007fELF");
  }

  /** RHEL 8: iptables and iptables-save link to xtables-nft-multi; no iptables-nft name. */
  HostFixture rhel8Iptables() {
    return binary("/usr/sbin/xtables-nft-multi")
        .link("/usr/sbin/iptables", "xtables-nft-multi")
        .link("/usr/sbin/iptables-save", "xtables-nft-multi")
        .link("/usr/sbin/iptables-restore", "xtables-nft-multi");
  }

  /** CentOS 7: iptables 1.4 links to xtables-multi. */
  HostFixture centos7Iptables() {
    return binary("/usr/sbin/xtables-multi")
        .link("/usr/sbin/iptables", "xtables-multi")
        .link("/usr/sbin/iptables-save", "xtables-multi");
  }

  /** Ubuntu 22.04: every name, chosen through /etc/alternatives with absolute links. */
  HostFixture ubuntuIptables() {
    binary("/usr/sbin/xtables-nft-multi").binary("/usr/sbin/xtables-legacy-multi");
    for (String v : List.of("", "-save")) {
      link("/usr/sbin/iptables-nft" + v, "xtables-nft-multi");
      link("/usr/sbin/iptables-legacy" + v, "xtables-legacy-multi");
      link("/usr/sbin/iptables" + v, "/etc/alternatives/iptables" + v);
      link("/etc/alternatives/iptables" + v, "/usr/sbin/iptables-nft" + v);
    }
    return this;
  }

  /**
   * Debian's and Ubuntu's IPv6 names from the iptables package (links to the same multi-binaries)
   * and nft from the nftables package.
   */
  HostFixture ip6tablesAndNft() {
    for (String v : List.of("", "-save")) {
      link("/usr/sbin/ip6tables-nft" + v, "xtables-nft-multi");
      link("/usr/sbin/ip6tables-legacy" + v, "xtables-legacy-multi");
      link("/usr/sbin/ip6tables" + v, "/etc/alternatives/ip6tables" + v);
      link("/etc/alternatives/ip6tables" + v, "/usr/sbin/ip6tables-nft" + v);
    }
    return binary("/usr/sbin/nft");
  }

  HostFixture containerdConfig(String toml) {
    return file("/etc/containerd/config.toml", toml);
  }

  HostFixture calicoConflist(String name, String extraPlugin) {
    return file(
        "/etc/cni/net.d/" + name,
        """
        {
          "name": "k8s-pod-network",
          "cniVersion": "0.3.1",
          "plugins": [
            {"type": "calico", "datastore_type": "kubernetes", "ipam": {"type": "calico-ipam"},
             "policy": {"type": "k8s"}, "kubernetes": {"kubeconfig": "/etc/cni/net.d/calico-kubeconfig"}},
            {"type": "bandwidth", "capabilities": {"bandwidth": true}},
            {"type": "portmap", "snat": true, "capabilities": {"portMappings": true}}%s
          ]
        }
        """
            .formatted(extraPlugin == null ? "" : ",\n" + extraPlugin));
  }

  /** The entry linkerd2-cni's installer appends; mode null leaves iptables-mode out. */
  static String linkerdPlugin(String mode) {
    return """
        {"name": "linkerd-cni", "type": "linkerd-cni", "log_level": "info",
         "kubernetes": {"kubeconfig": "/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig"},
         "linkerd": {"incoming-proxy-port": 4143, "outgoing-proxy-port": 4140, "proxy-uid": 2102,
           "ports-to-redirect": [], "inbound-ports-to-ignore": ["4191","4190"],
           "simulate": false, "use-wait-flag": false%s, "ipv6": false}}"""
        .formatted(mode == null ? "" : ", \"iptables-mode\": \"" + mode + "\"");
  }

  /** An older linkerd2-cni installer's entry: no {@code linkerd} section at all. */
  static String linkerdPluginWithoutSection() {
    return """
        {"name": "linkerd-cni", "type": "linkerd-cni", "log_level": "info",
         "kubernetes": {"kubeconfig": "/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig"}}""";
  }

  static final String CONTAINERD_V2 =
      """
      version = 2
      root = "/var/lib/containerd"
      [plugins]
        [plugins."io.containerd.grpc.v1.cri"]
          sandbox_image = "registry.k8s.io/pause:3.9"
          [plugins."io.containerd.grpc.v1.cri".cni]
            bin_dir = "/opt/cni/bin"
            conf_dir = "/etc/cni/net.d"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = true # cgroup v2
      """;

  // --- whole nodes ---------------------------------------------------------------------------

  static HostFixture rhel810(Path root) {
    return new HostFixture(root)
        .osRelease("rhel", "8.10", "Red Hat Enterprise Linux 8.10 (Ootpa)")
        .kernel(RHEL_KERNEL)
        .loaded("nft_chain_nat", "nf_nat", "nf_tables", "nft_compat", "nf_conntrack", "overlay")
        .tree(RHEL_KERNEL, "ip_tables", "iptable_nat", "nf_tables", "nft_chain_nat", "x_tables")
        .builtin(RHEL_KERNEL, "unix", "ipv6")
        .mergedUsr()
        .rhel8Iptables()
        .file("/etc/selinux/config", "# comment\nSELINUX=enforcing\nSELINUXTYPE=targeted\n");
  }

  static HostFixture centos7(Path root) {
    return new HostFixture(root)
        .osRelease("centos", "7", "CentOS Linux 7 (Core)")
        .kernel(CENTOS7_KERNEL)
        .loaded("iptable_nat", "nf_nat_ipv4", "nf_nat", "ip_tables", "x_tables", "iptable_filter")
        .tree(CENTOS7_KERNEL, "ip_tables", "iptable_nat", "iptable_filter", "x_tables")
        .builtin(CENTOS7_KERNEL, "unix")
        .dir("/usr/sbin")
        .dir("/sbin")
        .centos7Iptables();
  }

  static HostFixture ubuntu2204(Path root) {
    return new HostFixture(root)
        .osRelease("ubuntu", "22.04", "Ubuntu 22.04.4 LTS")
        .kernel(UBUNTU_KERNEL)
        .loaded(
            "xt_REDIRECT",
            "iptable_nat",
            "ip_tables",
            "x_tables",
            "nf_tables",
            "nft_chain_nat",
            "nf_nat",
            "br_netfilter")
        .tree(UBUNTU_KERNEL, "ip_tables", "iptable_nat", "nf_tables", "nft_chain_nat", "x_tables")
        .builtin(UBUNTU_KERNEL, "unix")
        .mergedUsr()
        .ubuntuIptables();
  }

  Path at(String hostPath) {
    return root.resolve(hostPath.substring(1));
  }
}
