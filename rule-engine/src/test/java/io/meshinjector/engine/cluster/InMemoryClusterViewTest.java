package io.meshinjector.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Source;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.testing.K8s;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InMemoryClusterViewTest {
  private static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");

  private final InMemoryClusterView view =
      new InMemoryClusterView(ConfigLoader.defaults().engine().capabilities(), warning -> {});

  @Test
  void heartbeatDoesNotRebuildTheIndex() {
    view.upsertNode(K8s.node("a", K8s.RHEL8, "v1.31.0"));
    NodeIndex first = view.nodes(NOW);
    var heartbeat =
        new NodeBuilder(K8s.node("a", K8s.RHEL8, "v1.31.0"))
            .editStatus()
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .withLastHeartbeatTime("2026-11-20T10:31:00Z")
            .endCondition()
            .endStatus()
            .build();
    view.upsertNode(heartbeat);
    assertThat(view.nodes(NOW)).isSameAs(first);
    view.upsertNode(K8s.node("a", K8s.CENTOS7, "v1.31.0"));
    NodeIndex second = view.nodes(NOW);
    assertThat(second).isNotSameAs(first);
    assertThat(second.capabilities("a").orElseThrow().verdict(CapabilityKey.IPTABLES_LEGACY))
        .isEqualTo(Verdict.AVAILABLE);
  }

  @Test
  void aTaintRebuildsTheIndexWithoutResolvingTheUnchangedNodesAgain() {
    view.upsertNode(K8s.node("a", K8s.RHEL8, "v1.31.0"));
    view.upsertNode(K8s.node("b", K8s.RHEL8, "v1.31.0"));
    NodeIndex first = view.nodes(NOW);
    var pod = new PodSpec();

    view.upsertNode(K8s.taint(K8s.node("a", K8s.RHEL8, "v1.31.0"), "dedicated", "x", "NoSchedule"));
    NodeIndex tainted = view.nodes(NOW);
    view.upsertNode(K8s.node("b", K8s.CENTOS7, "v1.31.0"));
    NodeIndex reimaged = view.nodes(NOW);

    assertThat(tainted).isNotSameAs(first);
    assertThat(tainted.names(tainted.candidates(pod), 10)).containsExactly("b");
    // the same resolution, not an equal one: the rebuild did not resolve the nodes again
    assertThat(tainted.capabilities("a").orElseThrow())
        .isSameAs(first.capabilities("a").orElseThrow());
    assertThat(tainted.capabilities("b").orElseThrow())
        .isSameAs(first.capabilities("b").orElseThrow());
    assertThat(reimaged.capabilities("a").orElseThrow())
        .isSameAs(first.capabilities("a").orElseThrow());
    assertThat(reimaged.capabilities("b").orElseThrow().verdict(CapabilityKey.IPTABLES_LEGACY))
        .isEqualTo(Verdict.AVAILABLE);
    assertThat(reimaged.classes()).hasSize(2);
  }

  @Test
  void aReportAheadOfTheClockIsUsedOnceTheClockCatchesUpWithoutAnyWrite() {
    view.upsert(K8s.node("c", K8s.CENTOS7, "v1.31.0"));
    // ten minutes ahead: more than the five of clock skew allowed
    view.upsert(K8s.probe("c", NOW.plus(Duration.ofMinutes(10)), NFT_ONLY, Map.of()));

    var ahead = view.nodes(NOW).capabilities("c").orElseThrow().get(CapabilityKey.IPTABLES_NFT);
    var caughtUp =
        view.nodes(NOW.plus(Duration.ofMinutes(6)))
            .capabilities("c")
            .orElseThrow()
            .get(CapabilityKey.IPTABLES_NFT);

    assertThat(ahead.source()).isEqualTo(Source.INFERENCE);
    assertThat(caughtUp.source()).isEqualTo(Source.PROBE);
    assertThat(caughtUp.verdict()).isEqualTo(Verdict.AVAILABLE);
  }

  @Test
  void nodesAreGroupedIntoClassesAndRemovedNodesLeave() {
    for (int i = 0; i < 10; i++) {
      view.upsertNode(K8s.node("rhel-" + i, K8s.RHEL8, "v1.31.0"));
      view.upsertNode(K8s.node("centos-" + i, K8s.CENTOS7, "v1.28.0"));
    }
    assertThat(view.nodes(NOW).classes()).hasSize(2);
    assertThat(view.nodes(NOW).size()).isEqualTo(20);
    for (int i = 0; i < 10; i++) {
      view.removeNode("centos-" + i);
    }
    assertThat(view.nodes(NOW).classes()).hasSize(1);
    assertThat(view.nodes(NOW).classes().get(0).members().cardinality()).isEqualTo(10);
  }

  @Test
  void probeVerdictExpiresAfterTtlWithoutAnyWrite() {
    view.upsert(K8s.node("c", K8s.CENTOS7, "v1.31.0"));
    view.upsert(
        K8s.probe(
            "c",
            NOW,
            Map.of("iptables-legacy", "unavailable", "iptables-nft", "available"),
            Map.of()));
    var fresh = view.nodes(NOW).capabilities("c").orElseThrow().get(CapabilityKey.IPTABLES_NFT);
    assertThat(fresh.verdict()).isEqualTo(Verdict.AVAILABLE);
    assertThat(fresh.source()).isEqualTo(Source.PROBE);
    var later =
        view.nodes(NOW.plus(Duration.ofMinutes(61)))
            .capabilities("c")
            .orElseThrow()
            .get(CapabilityKey.IPTABLES_NFT);
    assertThat(later.verdict()).isEqualTo(Verdict.UNAVAILABLE);
    assertThat(later.source()).isEqualTo(Source.INFERENCE);
  }

  static final Map<String, String> NFT_ONLY =
      Map.of("iptables-legacy", "unavailable", "iptables-nft", "available");

  @Test
  void sameVerdictProbeRefreshKeepsTheIndexUntilItExpires() {
    view.upsert(K8s.node("c", K8s.CENTOS7, "v1.31.0"));
    view.upsert(K8s.probe("c", NOW.minus(Duration.ofMinutes(30)), NFT_ONLY, Map.of()));
    NodeIndex first = view.nodes(NOW);
    assertThat(first.validUntil()).isEqualTo(NOW.plus(Duration.ofMinutes(30)));

    view.upsert(K8s.probe("c", NOW, NFT_ONLY, Map.of("loadedModules", "nf_tables")));
    assertThat(view.nodes(NOW)).isSameAs(first);
    assertThat(view.nodes(NOW.plus(Duration.ofMinutes(29)))).isSameAs(first);

    // at the old report's expiry the index is rebuilt and reads the refreshed one
    NodeIndex rebuilt = view.nodes(NOW.plus(Duration.ofMinutes(31)));
    assertThat(rebuilt).isNotSameAs(first);
    var nft = rebuilt.capabilities("c").orElseThrow().get(CapabilityKey.IPTABLES_NFT);
    assertThat(nft.verdict()).isEqualTo(Verdict.AVAILABLE);
    assertThat(nft.source()).isEqualTo(Source.PROBE);
    assertThat(nft.detail()).contains(NOW.toString());
    assertThat(rebuilt.validUntil()).isEqualTo(NOW.plus(Duration.ofHours(1)));

    var expired =
        view.nodes(NOW.plus(Duration.ofMinutes(61)))
            .capabilities("c")
            .orElseThrow()
            .get(CapabilityKey.IPTABLES_NFT);
    assertThat(expired.verdict()).isEqualTo(Verdict.UNAVAILABLE);
    assertThat(expired.source()).isEqualTo(Source.INFERENCE);
  }

  @Test
  void sameVerdictWithANewReasonRebuildsTheIndex() {
    view.upsert(K8s.node("c", K8s.CENTOS7, "v1.31.0"));
    Map<String, String> noBinary = Map.of("cni", "absent");
    view.upsert(
        K8s.probe(
            "c",
            NOW.minus(Duration.ofMinutes(30)),
            noBinary,
            Map.of("reason.cni", "linkerd-cni is not in /opt/cni/bin")));
    NodeIndex first = view.nodes(NOW);

    view.upsert(
        K8s.probe("c", NOW, noBinary, Map.of("reason.cni", "iptables-nft-save is missing")));
    NodeIndex second = view.nodes(NOW);

    assertThat(second).isNotSameAs(first);
    assertThat(second.capabilities("c").orElseThrow().get(CapabilityKey.CNI).detail())
        .contains("iptables-nft-save is missing");
  }

  @Test
  void probeReportWithAChangedVerdictRebuildsTheIndex() {
    view.upsert(K8s.node("c", K8s.CENTOS7, "v1.31.0"));
    view.upsert(K8s.probe("c", NOW.minus(Duration.ofMinutes(30)), NFT_ONLY, Map.of()));
    NodeIndex first = view.nodes(NOW);
    view.upsert(
        K8s.probe(
            "c",
            NOW,
            Map.of("iptables-legacy", "unavailable", "iptables-nft", "unavailable"),
            Map.of()));
    NodeIndex second = view.nodes(NOW);
    assertThat(second).isNotSameAs(first);
    assertThat(second.capabilities("c").orElseThrow().verdict(CapabilityKey.IPTABLES_NFT))
        .isEqualTo(Verdict.UNAVAILABLE);
  }

  @Test
  void sameVerdictReportAfterTheOldOneExpiredRebuildsTheIndex() {
    view.upsert(K8s.node("c", K8s.CENTOS7, "v1.31.0"));
    view.upsert(K8s.probe("c", NOW.minus(Duration.ofHours(2)), NFT_ONLY, Map.of()));
    NodeIndex first = view.nodes(NOW);
    assertThat(first.capabilities("c").orElseThrow().get(CapabilityKey.IPTABLES_NFT).source())
        .isEqualTo(Source.INFERENCE);
    view.upsert(K8s.probe("c", NOW, NFT_ONLY, Map.of()));
    var nft = view.nodes(NOW).capabilities("c").orElseThrow().get(CapabilityKey.IPTABLES_NFT);
    assertThat(nft.verdict()).isEqualTo(Verdict.AVAILABLE);
    assertThat(nft.source()).isEqualTo(Source.PROBE);
  }

  @Test
  void sameVerdictReportOlderThanTheIndexedOneExpiresOnItsOwnTime() {
    view.upsert(K8s.node("c", K8s.CENTOS7, "v1.31.0"));
    view.upsert(K8s.probe("c", NOW, NFT_ONLY, Map.of()));
    view.nodes(NOW);
    view.upsert(K8s.probe("c", NOW.minus(Duration.ofMinutes(50)), NFT_ONLY, Map.of()));
    var later =
        view.nodes(NOW.plus(Duration.ofMinutes(11)))
            .capabilities("c")
            .orElseThrow()
            .get(CapabilityKey.IPTABLES_NFT);
    assertThat(later.source()).isEqualTo(Source.INFERENCE);
  }

  @Test
  void liveCniReadinessComesAndGoes() {
    view.upsertNode(K8s.node("a", K8s.RHEL8, "v1.31.0"));
    view.setCniReady("a", true);
    assertThat(view.nodes(NOW).capabilities("a").orElseThrow().get(CapabilityKey.CNI).source())
        .isEqualTo(Source.LIVE);
    view.setCniReady("a", false);
    assertThat(view.nodes(NOW).capabilities("a").orElseThrow().verdict(CapabilityKey.CNI))
        .isEqualTo(Verdict.UNKNOWN);
  }

  @Test
  void otherKindsAreIgnored() {
    assertThat(view.upsert(K8s.pod("shop"))).isFalse();
    assertThat(view.upsert(K8s.enabled("shop"))).isTrue();
    assertThat(view.namespace("shop")).isPresent();
    assertThat(view.nodes(NOW).nodeNames()).isEqualTo(List.of());
  }
}
