package io.meshinjector.engine.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.check.PodsAtRisk.InjectedPod;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.rules.Viability;
import io.meshinjector.engine.testing.K8s;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The checks that need no cluster: a small cluster view in, the check lines out. */
class NodeChecksTest {
  static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");
  static final EngineConfig CONFIG = ConfigLoader.defaults().engine();
  static final Viability VIABILITY = new Viability(CONFIG.capabilities());

  /**
   * rhel-ok: nft by inference; centos: legacy by inference; broken: a fresh report says neither
   * iptables works nor the CNI is ready; stale: a report older than the TTL (its verdicts count as
   * unknown, so nft is assumed); bare: no report, Debian (unknown, assumed viable).
   */
  static NodeIndex cluster(InMemoryClusterView view) {
    view.upsert(K8s.node("rhel-ok", K8s.RHEL8, "v1.31.0"));
    view.upsert(K8s.node("centos", K8s.CENTOS7, "v1.31.0"));
    view.upsert(K8s.node("broken", K8s.RHEL8, "v1.31.0"));
    view.upsert(K8s.node("stale", K8s.RHEL8, "v1.31.0"));
    view.upsert(K8s.node("bare", K8s.UBUNTU, "v1.31.0"));
    view.upsert(
        K8s.probe(
            "broken",
            NOW.minus(Duration.ofMinutes(1)),
            Map.of(
                "iptables-legacy", "unavailable", "iptables-nft", "unavailable", "cni", "absent"),
            Map.of()));
    view.upsert(
        K8s.probe(
            "stale",
            NOW.minus(Duration.ofDays(2)),
            Map.of("iptables-legacy", "unavailable", "iptables-nft", "available"),
            Map.of()));
    return view.nodes(NOW);
  }

  static final InMemoryClusterView VIEW =
      new InMemoryClusterView(CONFIG.capabilities(), warning -> {});
  static final NodeIndex INDEX = cluster(VIEW);

  @Test
  void theNodeWhereNoPathWorksIsNamedWithWhatItLacksAndTheFix() {
    List<NodePaths.NoPath> none =
        NodePaths.withoutPath(INDEX, VIABILITY, CONFIG.policy().preference());
    assertThat(none).extracting(NodePaths.NoPath::node).containsExactly("broken");
    assertThat(none.get(0).lacks()).contains("iptables-nft unavailable").contains("cni absent");
    assertThat(NodePaths.countWithoutPath(INDEX, VIABILITY, CONFIG.policy().preference()))
        .isEqualTo(1);
    List<CheckResult> lines = NodeChecks.paths(5, none, CONFIG.policy().preference());
    assertThat(lines)
        .singleElement()
        .extracting(CheckResult::level)
        .isEqualTo(CheckResult.Level.WARN);
    assertThat(lines.get(0).name()).isEqualTo("no redirect path works on node broken");
    assertThat(lines.get(0).hint()).contains("nf_tables");
  }

  @Test
  void manyNodesWithoutAPathAreSummedUpAfterTheCap() {
    List<NodePaths.NoPath> many =
        IntStream.range(0, 50).mapToObj(i -> new NodePaths.NoPath("n-" + i, "x")).toList();
    List<CheckResult> lines = NodeChecks.paths(50, many, CONFIG.policy().preference());
    assertThat(lines).hasSize(NodeChecks.MAX_LINES + 1);
    assertThat(lines.get(NodeChecks.MAX_LINES).name()).contains("30 more nodes");
  }

  @Test
  void verdictCountsCoverEveryNodeOncePerKey() {
    Map<CapabilityKey, Map<Verdict, Integer>> counts = NodePaths.verdictCounts(INDEX);
    for (CapabilityKey key : CapabilityKey.values()) {
      assertThat(counts.get(key).values().stream().mapToInt(Integer::intValue).sum())
          .as(key.id())
          .isEqualTo(5);
    }
    assertThat(counts.get(CapabilityKey.IPTABLES_NFT).get(Verdict.UNAVAILABLE)).isEqualTo(2);
    assertThat(counts.get(CapabilityKey.IPTABLES_NFT).get(Verdict.AVAILABLE)).isEqualTo(2);
  }

  static Stream<Arguments> pods() {
    return Stream.of(
        Arguments.of("init/nft native-sidecar await", "broken", true),
        Arguments.of("init/nft native-sidecar await", "rhel-ok", false),
        Arguments.of("init/legacy container await", "rhel-ok", true),
        Arguments.of("init/legacy container await", "centos", false),
        // the CNI counts as not ready without facts: a CNI pod on a bare node is at risk
        Arguments.of("cni native-sidecar await", "bare", true),
        // a stale report counts as unknown, which the default assumes viable for iptables
        Arguments.of("init/nft native-sidecar await", "stale", false),
        // a node that is gone: the pod will not restart there
        Arguments.of("init/nft native-sidecar await", "gone", false),
        // not a path: a skipped pod's annotation, or a hand-written one
        Arguments.of("skipped", "broken", false),
        Arguments.of("", "broken", false));
  }

  @ParameterizedTest(name = "{0} on {1}: at risk {2}")
  @MethodSource("pods")
  void aRunningPodIsAtRiskWhenItsRecordedPathNoLongerWorksOnItsNode(
      String decision, String node, boolean atRisk) {
    InjectedPod pod = new InjectedPod("shop", "web-1", node, decision);
    assertThat(PodsAtRisk.find(List.of(pod), INDEX, VIABILITY)).hasSize(atRisk ? 1 : 0);
  }

  @Test
  void podsAtRiskFailOncePerNamespaceWithTheHint() {
    List<InjectedPod> pods =
        List.of(
            new InjectedPod("shop", "a", "broken", "init/nft native-sidecar await"),
            new InjectedPod("shop", "b", "broken", "init/nft native-sidecar await"),
            new InjectedPod("batch", "c", "broken", "init/nft native-sidecar await"),
            new InjectedPod("batch", "d", "rhel-ok", "init/nft native-sidecar await"));
    List<PodsAtRisk.AtRisk> risks = PodsAtRisk.find(pods, INDEX, VIABILITY);
    List<CheckResult> lines = NodeChecks.podsAtRisk(pods.size(), risks);
    assertThat(lines).hasSize(2).allMatch(l -> l.level() == CheckResult.Level.FAIL);
    assertThat(lines.get(0).name()).isEqualTo("1 pods at risk in namespace batch");
    assertThat(lines.get(1).name()).isEqualTo("2 pods at risk in namespace shop");
    assertThat(lines.get(1).detail()).contains("a on broken (init/nft: iptables-nft unavailable");
    assertThat(lines.get(1).hint()).contains("drain the node");
    assertThat(new CheckReport(lines).failed()).isTrue();
    assertThat(NodeChecks.podsAtRisk(1, List.of()))
        .singleElement()
        .extracting(CheckResult::level)
        .isEqualTo(CheckResult.Level.PASS);
  }

  @Test
  void probeCoverageNamesMissingAndStaleReports() {
    Duration ttl = CONFIG.capabilities().probeTtl();
    ProbeCoverage coverage =
        ProbeCoverage.assess(INDEX.nodeNames(), VIEW.probeReportTimes(), NOW, ttl);
    assertThat(coverage.missing()).containsExactlyInAnyOrder("rhel-ok", "centos", "bare");
    assertThat(coverage.stale()).extracting(ProbeCoverage.Stale::node).containsExactly("stale");
    assertThat(coverage.fresh()).isEqualTo(1);
    assertThat(coverage.oldest()).contains(Duration.ofDays(2));
    List<CheckResult> lines = NodeChecks.probes(coverage, ttl);
    assertThat(lines).hasSize(2).allMatch(l -> l.level() == CheckResult.Level.WARN);
    assertThat(lines.get(1).name()).isEqualTo("the probe report of node stale is stale");
    assertThat(lines.get(1).detail()).startsWith("reported 2d0h ago");

    ProbeCoverage all = ProbeCoverage.assess(List.of("broken"), VIEW.probeReportTimes(), NOW, ttl);
    assertThat(NodeChecks.probes(all, ttl))
        .singleElement()
        .extracting(CheckResult::level)
        .isEqualTo(CheckResult.Level.PASS);
  }

  static Stream<Arguments> certificates() {
    return Stream.of(
        Arguments.of(Duration.ofDays(-1), CheckResult.Level.FAIL),
        Arguments.of(Duration.ZERO, CheckResult.Level.FAIL),
        Arguments.of(Duration.ofDays(29), CheckResult.Level.WARN),
        Arguments.of(Duration.ofDays(31), CheckResult.Level.PASS));
  }

  @ParameterizedTest(name = "{0} left: {1}")
  @MethodSource("certificates")
  void theCertificateFailsWhenExpiredAndWarnsWithinThirtyDays(
      Duration left, CheckResult.Level expected) {
    assertThat(NodeChecks.certificate("the serving certificate", NOW.plus(left), NOW).level())
        .isEqualTo(expected);
  }

  @Test
  void theReportFailsOnlyOnAFailureAndPrintsGroupsAndHints() {
    CheckReport warnOnly =
        new CheckReport(
            List.of(
                CheckResult.pass("a", "one", "fine"),
                CheckResult.warn("a", "two", "meh", "do this"),
                CheckResult.pass("b", "three", "")));
    assertThat(warnOnly.failed()).isFalse();
    assertThat(warnOnly.text())
        .isEqualTo(
            "a\n-\n√ one: fine\n‼ two: meh\n    see: do this\n\nb\n-\n√ three\n\n"
                + "Status check results are √ (2 passed, 1 warnings, 0 failed)\n");
    CheckReport failed =
        new CheckReport(List.of(CheckResult.fail("a", "four", "broken", "fix it")));
    assertThat(failed.failed()).isTrue();
    assertThat(failed.toJsonMap()).containsEntry("success", false);
    assertThat(failed.text()).contains("× four: broken\n    see: fix it");
  }

  @Test
  void windowsNodesAndUnsetPodCidrsAreNamedAndAnInjectedPodOnWindowsIsAtRisk() {
    InMemoryClusterView view = new InMemoryClusterView(CONFIG.capabilities(), w -> {});
    view.upsert(
        K8s.operatingSystem(
            K8s.node("win-1", "Windows Server 2022 Datacenter", "v1.31.0"), "windows"));
    view.upsert(
        K8s.podCidrs(
            K8s.operatingSystem(K8s.node("lin-1", K8s.RHEL8, "v1.31.0"), "linux"),
            "10.244.1.0/24"));
    NodeIndex index = view.nodes(NOW);

    List<CheckResult> lines =
        NodeChecks.nodeMatrix(
            NodePaths.withVerdict(index, CapabilityKey.OS, Verdict.WINDOWS),
            NodePaths.withVerdict(index, CapabilityKey.IPV6_PODS, Verdict.UNKNOWN),
            false);
    assertThat(lines)
        .extracting(CheckResult::name)
        .containsExactly("1 nodes run Windows", "1 nodes have no spec.podCIDRs");
    assertThat(lines).allMatch(l -> l.level() == CheckResult.Level.WARN);
    assertThat(lines.get(0).detail()).isEqualTo("win-1");
    assertThat(lines.get(1).detail()).isEqualTo("win-1");
    assertThat(lines.get(1).hint()).contains("proxyInit.ipv6 (false)", "bypasses the proxy");

    List<PodsAtRisk.AtRisk> risks =
        PodsAtRisk.find(
            List.of(
                new InjectedPod("shop", "web-1", "win-1", "init/nft native-sidecar await"),
                new InjectedPod("shop", "web-2", "lin-1", "init/nft native-sidecar await")),
            index,
            VIABILITY);
    assertThat(risks)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.pod().name()).isEqualTo("web-1");
              assertThat(r.lack()).startsWith("the node runs Windows (os windows (inference:");
            });
  }

  @Test
  void aDualStackNodeWithoutAnIpv6RedirectHasNoPath() {
    InMemoryClusterView view = new InMemoryClusterView(CONFIG.capabilities(), w -> {});
    view.upsert(
        K8s.podCidrs(
            K8s.node("dual-1", K8s.RHEL8, "v1.31.0"), "10.244.1.0/24", "fd00:10:244:1::/64"));
    view.upsert(K8s.podCidrs(K8s.node("v4-1", K8s.RHEL8, "v1.31.0"), "10.244.2.0/24"));
    for (String node : List.of("dual-1", "v4-1")) {
      view.upsert(
          K8s.probe(
              node,
              NOW.minus(Duration.ofMinutes(1)),
              Map.of("iptables-nft", "available", "ip6tables-nft", "unavailable"),
              Map.of()));
    }
    List<NodePaths.NoPath> without =
        NodePaths.withoutPath(view.nodes(NOW), VIABILITY, CONFIG.policy().preference());
    // the IPv4-only node's pods need no IPv6 redirect
    assertThat(without)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.node()).isEqualTo("dual-1");
              assertThat(p.lacks())
                  .contains(
                      "init/nft needs ip6tables-nft unavailable (probe:",
                      "the pods have IPv6 (ipv6-pods present");
            });
  }
}
