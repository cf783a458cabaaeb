package io.meshinjector.webhook.probe;

import static io.meshinjector.engine.capability.CapabilityKey.IP6TABLES_LEGACY;
import static io.meshinjector.engine.capability.CapabilityKey.IP6TABLES_NFT;
import static io.meshinjector.engine.capability.CapabilityKey.NFTABLES;
import static io.meshinjector.engine.capability.Verdict.AVAILABLE;
import static io.meshinjector.engine.capability.Verdict.UNAVAILABLE;
import static io.meshinjector.engine.capability.Verdict.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.ProbeSource;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.probe.ProbeReport;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ip6tables-legacy, ip6tables-nft and nftables from the node's files, on hosts whose module trees
 * list what their kernels really ship for IPv6 nat and nft's own redirect.
 */
class Ipv6ProbeTest {
  static final String UBUNTU_2404 = "6.8.0-31-generic";
  static final String DEBIAN_10 = "4.19.0-27-amd64";

  @TempDir Path root;

  record Row(
      String name,
      Function<Path, HostFixture> node,
      Map<CapabilityKey, Verdict> verdicts,
      Map<CapabilityKey, String> reasons) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> nodes() {
    return Stream.of(
            new Row(
                "Ubuntu 24.04 with kube-proxy's ip6tables: all three",
                r ->
                    new HostFixture(r)
                        .osRelease("ubuntu", "24.04", "Ubuntu 24.04 LTS")
                        .kernel(UBUNTU_2404)
                        // kube-proxy in iptables mode has made the host load ip6_tables
                        .loaded(
                            "x_tables",
                            "ip_tables",
                            "iptable_nat",
                            "ip6_tables",
                            "ip6table_filter",
                            "nf_tables",
                            "nft_chain_nat",
                            "nf_nat",
                            "nf_conntrack",
                            "nf_defrag_ipv6")
                        .tree(
                            UBUNTU_2404,
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
                            "xt_REDIRECT")
                        .builtin(UBUNTU_2404, "unix", "ipv6")
                        .mergedUsr()
                        .ubuntuIptables()
                        .ip6tablesAndNft(),
                Map.of(IP6TABLES_LEGACY, AVAILABLE, IP6TABLES_NFT, AVAILABLE, NFTABLES, AVAILABLE),
                Map.of(
                    IP6TABLES_LEGACY,
                    "ip6_tables is loaded; ip6table_nat, xt_REDIRECT are in the module tree of"
                        + " kernel "
                        + UBUNTU_2404
                        + ", which loads them on first use",
                    IP6TABLES_NFT,
                    "nf_tables, nft_chain_nat are loaded; nft_compat, xt_REDIRECT are in the"
                        + " module tree",
                    NFTABLES,
                    "nf_tables, nft_chain_nat are loaded; nft_redir is in the module tree")),
            new Row(
                "RHEL 8.10 with its module tree: ip6tables-nft; inet nat only if backported",
                r ->
                    HostFixture.rhel810(r)
                        .tree(
                            HostFixture.RHEL_KERNEL,
                            "ip_tables",
                            "iptable_nat",
                            "ip6_tables",
                            "ip6table_nat",
                            "nf_tables",
                            "nft_chain_nat",
                            "nft_compat",
                            "nft_redir",
                            "x_tables",
                            "xt_REDIRECT"),
                Map.of(IP6TABLES_LEGACY, UNAVAILABLE, IP6TABLES_NFT, AVAILABLE, NFTABLES, UNKNOWN),
                Map.of(
                    IP6TABLES_LEGACY,
                    "it is in the module tree, so `modprobe ip6_tables` on the node (or the"
                        + " chart's nodePrep with it in nodePrep.extraModules) makes"
                        + " ip6tables-legacy available",
                    IP6TABLES_NFT,
                    "nf_tables, nft_chain_nat, nft_compat are loaded; xt_REDIRECT is in the"
                        + " module tree",
                    NFTABLES,
                    "is older than 5.2, which brought nat to inet tables")),
            new Row(
                "Debian 10, kernel 4.19: nat chains per family, no inet nat",
                r ->
                    new HostFixture(r)
                        .osRelease("debian", "10", "Debian GNU/Linux 10 (buster)")
                        .kernel(DEBIAN_10)
                        .loaded("overlay")
                        .tree(
                            DEBIAN_10,
                            "ip6_tables",
                            "ip6table_nat",
                            "nf_nat_ipv6",
                            "nf_tables",
                            "nft_chain_nat_ipv4",
                            "nft_chain_nat_ipv6",
                            "nft_compat",
                            "nft_redir",
                            "nft_redir_ipv6",
                            "xt_REDIRECT")
                        .builtin(DEBIAN_10, "unix", "ipv6")
                        .mergedUsr(),
                Map.of(
                    IP6TABLES_LEGACY, UNAVAILABLE, IP6TABLES_NFT, AVAILABLE, NFTABLES, UNAVAILABLE),
                Map.of(
                    IP6TABLES_LEGACY,
                    "ip6_tables is neither loaded nor built into kernel " + DEBIAN_10,
                    IP6TABLES_NFT,
                    "nf_tables, nft_chain_nat, nft_compat, xt_REDIRECT are in the module tree",
                    NFTABLES,
                    "its nft_chain_nat_ipv6 is the per-family nat chain of kernels before 5.1")),
            new Row(
                "a minimal kernel without ip6_tables and nft_redir: ip6tables-nft only",
                r ->
                    new HostFixture(r)
                        .osRelease("flatcar", "3815.2.0", "Flatcar Container Linux 3815.2.0")
                        .kernel("6.1.0-minimal")
                        .loaded("nf_tables", "nft_chain_nat")
                        .tree("6.1.0-minimal", "nft_compat", "xt_REDIRECT", "ip_tables")
                        .builtin("6.1.0-minimal", "unix")
                        .mergedUsr(),
                // nft_chain_nat serves both families since 5.1; nft_redir was not built
                Map.of(
                    IP6TABLES_LEGACY, UNAVAILABLE, IP6TABLES_NFT, AVAILABLE, NFTABLES, UNAVAILABLE),
                Map.of(
                    IP6TABLES_LEGACY,
                    "ip6_tables is not in the module tree either; ip6table_nat is neither loaded,"
                        + " built in, nor in the module tree",
                    IP6TABLES_NFT,
                    "nf_tables, nft_chain_nat are loaded",
                    NFTABLES,
                    "nft_redir is neither loaded, built in, nor in the module tree")),
            new Row(
                "no module tree mounted: what only loads on demand cannot be told",
                r ->
                    new HostFixture(r)
                        .osRelease("ubuntu", "24.04", "Ubuntu 24.04 LTS")
                        .kernel(UBUNTU_2404)
                        .loaded("ip6_tables", "ip6table_nat", "nf_tables", "nft_chain_nat")
                        .mergedUsr(),
                Map.of(IP6TABLES_LEGACY, UNKNOWN, IP6TABLES_NFT, UNKNOWN, NFTABLES, UNKNOWN),
                Map.of(
                    IP6TABLES_LEGACY,
                    "xt_REDIRECT not found where readable; cannot read: ",
                    IP6TABLES_NFT,
                    "nft_compat, xt_REDIRECT not found where readable",
                    NFTABLES,
                    "/lib/modules/" + UBUNTU_2404 + "/modules.dep")))
        .map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodes")
  void measuresIpv6NatAndNftablesFromTheFiles(Row row) {
    ProbeReport report = HostProbeTest.probe(row.node().apply(root));

    assertThat(report.status().capabilities()).containsAllEntriesOf(row.verdicts());
    row.reasons()
        .forEach(
            (key, reason) ->
                assertThat(report.status().facts().get("reason." + key.id()))
                    .as(key.id())
                    .contains(reason));
    for (CapabilityKey key : row.verdicts().keySet()) {
      assertThat(report.status().sources()).containsEntry(key, ProbeSource.FILES);
      assertThat(report.findings())
          .anySatisfy(
              f ->
                  assertThat(f)
                      .startsWith(key.id() + ": " + row.verdicts().get(key).id() + " - ")
                      .endsWith("[files]"));
    }
    assertThat(report.status().capabilities())
        .doesNotContainKeys(CapabilityKey.IPV6_PODS, CapabilityKey.OS);
  }

  @Test
  void theHostsIpv6BinariesAndNftAreFactsNotVerdicts() {
    ProbeReport report = HostProbeTest.probe(HostFixture.ubuntu2204(root).ip6tablesAndNft());

    assertThat(report.status().facts())
        .containsEntry(
            "hostBinaries",
            "ip6tables,ip6tables-legacy,ip6tables-legacy-save,ip6tables-nft,ip6tables-nft-save,"
                + "ip6tables-save,iptables,iptables-legacy,iptables-legacy-save,iptables-nft,"
                + "iptables-nft-save,iptables-save,nft");
    // a pod's init container brings its own binaries: the host's decide nothing, its modules do
    assertThat(report.status().capabilities())
        .containsEntry(IP6TABLES_LEGACY, UNAVAILABLE)
        .containsEntry(IP6TABLES_NFT, UNAVAILABLE)
        .containsEntry(NFTABLES, UNAVAILABLE);
  }
}
