package io.meshinjector.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Source;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.testing.K8s;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How {@link InMemoryClusterView} paces costly rebuilds, on a ticker the test moves. */
class RebuildPacingTest {
  private static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");
  private static final long MS = 1_000_000;

  /** Each reading moves the time on by {@code step}: a rebuild then costs one step. */
  private final AtomicLong time = new AtomicLong(1_000 * MS);

  private final AtomicLong step = new AtomicLong(30 * MS);

  private final InMemoryClusterView view =
      new InMemoryClusterView(
          ConfigLoader.defaults().engine().capabilities(),
          w -> {},
          () -> time.addAndGet(step.get()));

  private void nodes(int count) {
    for (int i = 0; i < count; i++) {
      view.upsertNode(K8s.node(String.format("n%05d", i), K8s.RHEL8, "v1.31.0"));
    }
  }

  private static boolean schedulable(NodeIndex index, String node) {
    return index.names(index.candidates(new PodSpec()), Integer.MAX_VALUE).contains(node);
  }

  @Test
  void afterACostlyRebuildAChangeReachesAdmissionsOnlyTenRebuildsLaterAndTheLabelReaderAtOnce() {
    nodes(InMemoryClusterView.PACED_FROM);
    NodeIndex first = view.nodes(NOW); // costs 30 ms by the ticker

    view.upsertNode(
        K8s.taint(K8s.node("n00007", K8s.RHEL8, "v1.31.0"), "dedicated", "x", "NoSchedule"));
    // within 300 ms of the rebuild: admissions read the index before the taint
    assertThat(view.nodes(NOW)).isSameAs(first);
    assertThat(schedulable(view.nodes(NOW), "n00007")).isTrue();
    // the reader that acts once per change sees it now
    NodeIndex latest = view.latestNodes(NOW);
    assertThat(schedulable(latest, "n00007")).isFalse();

    view.upsertNode(K8s.node("n00007", K8s.RHEL8, "v1.31.0"));
    assertThat(view.nodes(NOW)).isSameAs(latest);
    time.addAndGet(300 * MS);
    NodeIndex caughtUp = view.nodes(NOW);
    assertThat(caughtUp).isNotSameAs(latest);
    assertThat(schedulable(caughtUp, "n00007")).isTrue();
  }

  @Test
  void aChangeWaitsNoLongerThanASecondWhateverTheRebuildCost() {
    nodes(InMemoryClusterView.PACED_FROM);
    step.set(400 * MS);
    NodeIndex first = view.nodes(NOW); // costs 400 ms: ten of it would be 4 s
    step.set(0);
    view.removeNode("n00003");
    time.addAndGet(999 * MS);
    assertThat(view.nodes(NOW)).isSameAs(first);
    time.addAndGet(2 * MS);
    assertThat(view.nodes(NOW).size()).isEqualTo(InMemoryClusterView.PACED_FROM - 1);
  }

  @Test
  void cheapRebuildsAndSmallViewsAreNeverPaced() {
    nodes(InMemoryClusterView.PACED_FROM);
    step.set(MS); // under COSTLY
    NodeIndex first = view.nodes(NOW);
    view.removeNode("n00001");
    assertThat(view.nodes(NOW)).isNotSameAs(first);

    InMemoryClusterView small =
        new InMemoryClusterView(
            ConfigLoader.defaults().engine().capabilities(),
            w -> {},
            () -> time.addAndGet(500 * MS));
    small.upsertNode(K8s.node("a", K8s.RHEL8, "v1.31.0"));
    NodeIndex before = small.nodes(NOW); // costs 500 ms, but the view is small
    small.upsertNode(K8s.node("b", K8s.RHEL8, "v1.31.0"));
    assertThat(small.nodes(NOW)).isNotSameAs(before);
    assertThat(small.nodes(NOW).size()).isEqualTo(2);
  }

  @Test
  void anExpiredVerdictIsNeverServedWhilePaced() {
    nodes(InMemoryClusterView.PACED_FROM);
    view.upsert(K8s.probe("n00002", NOW, InMemoryClusterViewTest.NFT_ONLY, Map.of()));
    NodeIndex first = view.nodes(NOW);
    assertThat(first.capabilities("n00002").orElseThrow().get(CapabilityKey.IPTABLES_NFT).source())
        .isEqualTo(Source.PROBE);

    view.removeNode("n00009"); // a change that waits
    Instant later =
        NOW.plus(ConfigLoader.defaults().engine().capabilities().probeTtl()).plusSeconds(1);
    NodeIndex expired = view.nodes(later);
    assertThat(expired).isNotSameAs(first);
    var nft = expired.capabilities("n00002").orElseThrow().get(CapabilityKey.IPTABLES_NFT);
    assertThat(nft.source()).isNotEqualTo(Source.PROBE);
    // and the waiting change came with it
    assertThat(expired.size()).isEqualTo(InMemoryClusterView.PACED_FROM - 1);
  }
}
