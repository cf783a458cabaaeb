package io.meshinjector.webhook.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.support.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeHealthMetricsTest {
  static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");
  static final MeshConfig CONFIG = ConfigLoader.defaults();

  static Node node(String name, String osImage) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .withNewNodeInfo()
        .withOsImage(osImage)
        .withKubeletVersion("v1.31.0")
        .endNodeInfo()
        .endStatus()
        .build();
  }

  static GenericKubernetesResource report(
      String node, Instant at, Map<CapabilityKey, Verdict> caps) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(NodeCapabilityStatus.API_VERSION);
    r.setKind(NodeCapabilityStatus.KIND);
    r.setMetadata(new ObjectMetaBuilder().withName(node).build());
    r.setAdditionalProperty(
        "status", new NodeCapabilityStatus(at, caps, Map.of(), Map.of()).toMap());
    return r;
  }

  @Test
  void theGaugesCountNodesByVerdictWithoutPathAndByProbeReport() {
    InMemoryClusterView view =
        new InMemoryClusterView(CONFIG.engine().capabilities(), warning -> {});
    view.upsert(node("rhel", "Red Hat Enterprise Linux 8.10 (Ootpa)"));
    view.upsert(node("broken", "Red Hat Enterprise Linux 8.10 (Ootpa)"));
    view.upsert(node("old", "Red Hat Enterprise Linux 8.10 (Ootpa)"));
    view.upsert(
        report(
            "broken",
            NOW.minusSeconds(60),
            Map.of(
                CapabilityKey.IPTABLES_LEGACY, Verdict.UNAVAILABLE,
                CapabilityKey.IPTABLES_NFT, Verdict.UNAVAILABLE,
                CapabilityKey.CNI, Verdict.ABSENT)));
    view.upsert(
        report(
            "old",
            NOW.minus(Duration.ofHours(3)),
            Map.of(CapabilityKey.IPTABLES_NFT, Verdict.AVAILABLE)));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MutableClock clock = new MutableClock(NOW);
    NodeHealthMetrics.register(registry, () -> view, view::probeReportTimes, CONFIG, clock);

    assertThat(registry.get(NodeHealthMetrics.WITHOUT_PATH).gauge().value()).isEqualTo(1);
    assertThat(
            registry
                .get(NodeHealthMetrics.BY_VERDICT)
                .tags("key", "iptables-nft", "verdict", "available")
                .gauge()
                .value())
        .as("rhel by inference; old's report is stale, so inference again")
        .isEqualTo(2);
    assertThat(
            registry
                .get(NodeHealthMetrics.BY_VERDICT)
                .tags("key", "cni", "verdict", "absent")
                .gauge()
                .value())
        .isEqualTo(1);
    assertThat(registry.get(NodeHealthMetrics.PROBE_REPORTS).tag("state", "fresh").gauge().value())
        .isEqualTo(1);
    assertThat(registry.get(NodeHealthMetrics.PROBE_REPORTS).tag("state", "stale").gauge().value())
        .isEqualTo(1);
    assertThat(
            registry.get(NodeHealthMetrics.PROBE_REPORTS).tag("state", "missing").gauge().value())
        .isEqualTo(1);
    assertThat(registry.get(NodeHealthMetrics.OLDEST_REPORT).gauge().value()).isEqualTo(3 * 3600.0);

    // within the refresh period a scrape reuses the figures; after it, they follow the view
    view.removeNode("broken");
    assertThat(registry.get(NodeHealthMetrics.WITHOUT_PATH).gauge().value()).isEqualTo(1);
    clock.advance(NodeHealthMetrics.REFRESH);
    assertThat(registry.get(NodeHealthMetrics.WITHOUT_PATH).gauge().value()).isZero();
    assertThat(registry.get(NodeHealthMetrics.OLDEST_REPORT).gauge().value())
        .isEqualTo(3 * 3600.0 + NodeHealthMetrics.REFRESH.toSeconds());
  }

  @Test
  void theOldestReportIsNaNWithoutReports() {
    InMemoryClusterView view =
        new InMemoryClusterView(CONFIG.engine().capabilities(), warning -> {});
    view.upsert(node("rhel", "Red Hat Enterprise Linux 8.10 (Ootpa)"));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    NodeHealthMetrics.register(
        registry, () -> view, view::probeReportTimes, CONFIG, Clock.fixed(NOW, ZoneOffset.UTC));
    assertThat(registry.get(NodeHealthMetrics.OLDEST_REPORT).gauge().value()).isNaN();
    assertThat(
            registry.get(NodeHealthMetrics.PROBE_REPORTS).tag("state", "missing").gauge().value())
        .isEqualTo(1);
  }
}
