package io.meshinjector.engine.probe;

import static io.meshinjector.engine.capability.Verdict.AVAILABLE;
import static io.meshinjector.engine.capability.Verdict.UNAVAILABLE;
import static io.meshinjector.engine.capability.Verdict.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The files' verdicts for ip6tables-legacy, ip6tables-nft and nftables: which modules each needs,
 * and which of them the kernel loads by itself.
 */
class Ipv6ModuleVerdictsTest {
  static final String K = "6.8.0-31-generic";

  static KernelModules modules(Set<String> loaded, Set<String> builtin, Set<String> tree) {
    return new KernelModules(loaded, null, builtin, null, tree, null);
  }

  /** A current distribution kernel: everything is a module, nothing IPv6 is loaded yet. */
  static final Set<String> FULL_TREE =
      Set.of(
          "x_tables",
          "ip_tables",
          "iptable_nat",
          "ip6_tables",
          "ip6table_nat",
          "nf_tables",
          "nft_chain_nat",
          "nft_compat",
          "nft_redir",
          "nf_nat",
          "nf_conntrack",
          "nf_defrag_ipv6",
          "xt_REDIRECT");

  @Test
  void ip6tablesLegacyNeedsIp6TablesLoadedButTheKernelLoadsTheNatTableItself() {
    KernelModules notLoaded = modules(Set.of("overlay"), Set.of("ipv6"), FULL_TREE);
    ProbeFinding before = ModuleVerdicts.ip6Legacy(notLoaded, K);
    assertThat(before.verdict()).isEqualTo(UNAVAILABLE);
    assertThat(before.reason())
        .isEqualTo(
            "ip6_tables is neither loaded nor built into kernel "
                + K
                + "; a pod's init container cannot load kernel modules (\"ip6tables who? (do you"
                + " need to insmod?)\"); it is in the module tree, so `modprobe ip6_tables` on the"
                + " node (or the chart's nodePrep with it in nodePrep.extraModules) makes"
                + " ip6tables-legacy available");

    // kube-proxy's ip6tables loaded ip6_tables on the host: ip6table_nat and xt_REDIRECT then
    // come by request_module on first use
    KernelModules loaded = modules(Set.of("ip6_tables", "x_tables"), Set.of("ipv6"), FULL_TREE);
    ProbeFinding after = ModuleVerdicts.ip6Legacy(loaded, K);
    assertThat(after)
        .isEqualTo(
            new ProbeFinding(
                AVAILABLE,
                "ip6_tables is loaded; ip6table_nat, xt_REDIRECT are in the module tree of kernel "
                    + K
                    + ", which loads them on first use"));
  }

  @Test
  void ip6tablesNftNeedsTheIpv6NatChainAndTheCompatTarget() {
    KernelModules full = modules(Set.of("nf_tables"), Set.of(), FULL_TREE);
    assertThat(ModuleVerdicts.ip6Nft(full, K).verdict()).isEqualTo(AVAILABLE);
    assertThat(ModuleVerdicts.ip6Nft(full, K).reason())
        .isEqualTo(
            "nf_tables is loaded; nft_chain_nat, nft_compat, xt_REDIRECT are in the module tree"
                + " of kernel "
                + K
                + ", which loads them on first use");

    // a kernel built with IPv4 nat chains only (before 5.1 the chain was split by family)
    KernelModules v4only =
        modules(
            Set.of(),
            Set.of(),
            Set.of("nf_tables", "nft_chain_nat_ipv4", "nft_compat", "xt_REDIRECT", "nf_nat"));
    assertThat(ModuleVerdicts.ip6Nft(v4only, "4.19.0-27-amd64"))
        .isEqualTo(
            new ProbeFinding(
                UNAVAILABLE,
                "nft_chain_nat (nft_chain_nat_ipv6 before kernel 5.1) is neither loaded, built in,"
                    + " nor in the module tree of kernel 4.19.0-27-amd64"));
    KernelModules split =
        modules(
            Set.of(),
            Set.of(),
            Set.of("nf_tables", "nft_chain_nat_ipv6", "nf_nat_ipv6", "nft_compat", "xt_REDIRECT"));
    assertThat(ModuleVerdicts.ip6Nft(split, "4.19.0-27-amd64").verdict()).isEqualTo(AVAILABLE);
  }

  @Test
  void nftablesNeedsTheInetNatOfKernel52() {
    KernelModules full = modules(Set.of(), Set.of("nf_tables"), FULL_TREE);
    assertThat(ModuleVerdicts.nftables(full, K))
        .isEqualTo(
            new ProbeFinding(
                AVAILABLE,
                "nf_tables is built into kernel "
                    + K
                    + "; nft_chain_nat, nft_redir are in the module tree of kernel "
                    + K
                    + ", which loads them on first use"));

    // RHEL 8 carries the merged nft_chain_nat on 4.18: whether its vendor also backported inet
    // nat the files cannot say
    ProbeFinding rhel = ModuleVerdicts.nftables(full, "4.18.0-553.el8_10.x86_64");
    assertThat(rhel.verdict()).isEqualTo(UNKNOWN);
    assertThat(rhel.reason()).contains("is older than 5.2, which brought nat to inet tables");

    KernelModules split =
        modules(
            Set.of(),
            Set.of(),
            Set.of("nf_tables", "nft_chain_nat_ipv4", "nft_chain_nat_ipv6", "nft_redir"));
    ProbeFinding old = ModuleVerdicts.nftables(split, "4.19.0-27-amd64");
    assertThat(old.verdict()).isEqualTo(UNAVAILABLE);
    assertThat(old.reason())
        .isEqualTo(
            "nft_chain_nat is neither loaded, built in, nor in the module tree of kernel"
                + " 4.19.0-27-amd64; its nft_chain_nat_ipv6 is the per-family nat chain of kernels"
                + " before 5.1, which have no nat in inet tables");

    assertThat(ModuleVerdicts.nftables(full, "custom").verdict()).isEqualTo(UNKNOWN);
  }

  @Test
  void whatCannotBeReadIsUnknownAndNamesTheFile() {
    KernelModules noTree =
        new KernelModules(
            Set.of("ip6_tables"),
            null,
            Set.of(),
            null,
            null,
            "/lib/modules/" + K + "/modules.dep does not exist");
    ProbeFinding legacy = ModuleVerdicts.ip6Legacy(noTree, K);
    assertThat(legacy.verdict()).isEqualTo(UNKNOWN);
    assertThat(legacy.reason())
        .isEqualTo(
            "ip6table_nat, xt_REDIRECT not found where readable; cannot read: /lib/modules/"
                + K
                + "/modules.dep does not exist");
    // the module list gone: a module that must be loaded cannot be told either
    KernelModules noList =
        new KernelModules(null, "/proc/modules does not exist", Set.of(), null, FULL_TREE, null);
    assertThat(ModuleVerdicts.ip6Legacy(noList, K).reason())
        .isEqualTo(
            "ip6_tables not found where readable; cannot read: /proc/modules does not exist");
    // without the module list even a module the tree lacks stays unknown, as for iptables-nft:
    // it may have been loaded from outside the tree
    KernelModules knownMissing =
        new KernelModules(null, "/proc/modules does not exist", Set.of(), null, Set.of(), null);
    assertThat(ModuleVerdicts.nftables(knownMissing, K).verdict()).isEqualTo(UNKNOWN);
  }

  @Test
  void aKernelsOwnConfigNamesItsIpv6AndRedirectParts() {
    Set<String> builtin =
        KernelModules.parseKernelConfig(
            "CONFIG_IP6_NF_IPTABLES=y\nCONFIG_IP6_NF_NAT=y\nCONFIG_NF_TABLES=y\nCONFIG_NFT_NAT=y\n"
                + "CONFIG_NFT_COMPAT=y\nCONFIG_NFT_REDIR=y\nCONFIG_NETFILTER_XT_TARGET_REDIRECT=y\n"
                + "CONFIG_NF_DEFRAG_IPV6=y\nCONFIG_NFT_CHAIN_NAT_IPV6=m\n");
    assertThat(builtin)
        .contains(
            "ip6_tables",
            "ip6table_nat",
            "nf_tables",
            "nft_chain_nat",
            "nft_compat",
            "nft_redir",
            "xt_REDIRECT",
            "nf_defrag_ipv6")
        .doesNotContain("nft_chain_nat_ipv6");
    KernelModules k = new KernelModules(null, "no /proc/modules", builtin, null, null, "no tree");
    assertThat(ModuleVerdicts.ip6Legacy(k, "6.18.44").verdict()).isEqualTo(AVAILABLE);
    assertThat(ModuleVerdicts.ip6Nft(k, "6.18.44").verdict()).isEqualTo(AVAILABLE);
    assertThat(ModuleVerdicts.nftables(k, "6.18.44").verdict()).isEqualTo(AVAILABLE);
  }

  @Test
  void releaseVersionsAreReadFromTheFront() {
    assertThat(ModuleVerdicts.KernelVersion.of("5.15.0-91-generic"))
        .isEqualTo(new ModuleVerdicts.KernelVersion(5, 15));
    assertThat(ModuleVerdicts.KernelVersion.of("6.18.44-fc-v657"))
        .isEqualTo(new ModuleVerdicts.KernelVersion(6, 18));
    assertThat(ModuleVerdicts.KernelVersion.of("custom")).isNull();
    assertThat(ModuleVerdicts.KernelVersion.of(null)).isNull();
    // 5.10 is after 5.2: numbers, not text
    assertThat(new ModuleVerdicts.KernelVersion(5, 10).before(ModuleVerdicts.INET_NAT_SINCE))
        .isFalse();
    assertThat(new ModuleVerdicts.KernelVersion(5, 1).before(ModuleVerdicts.INET_NAT_SINCE))
        .isTrue();
    assertThat(new ModuleVerdicts.KernelVersion(4, 19).before(ModuleVerdicts.INET_NAT_SINCE))
        .isTrue();
  }
}
