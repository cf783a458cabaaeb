package io.meshinjector.webhook.controllers;

import static io.meshinjector.webhook.support.ClusterFixtures.RHEL;
import static io.meshinjector.webhook.support.ClusterFixtures.await;
import static io.meshinjector.webhook.support.ClusterFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.server.LiveCluster;
import io.meshinjector.webhook.settings.ClusterSettings;
import io.meshinjector.webhook.support.ClusterFixtures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The capability labels beside another release's: against fabric8's CRUD mock, the writer sets,
 * corrects and removes the keys of this release's {@code CapabilityKey} and leaves every other
 * {@code capability.mesh-injector.io/*} key, which a release of another version publishes, alone.
 */
@EnableKubernetesMockClient(crud = true)
class CapabilityLabelsTest {
  static final Duration LIMIT = Duration.ofSeconds(20);
  static final String PREFIX = "capability.mesh-injector.io/";
  static final String FUTURE = PREFIX + "some-future-key";
  static final LeaderElection.Timing FAST =
      new LeaderElection.Timing(
          Duration.ofMillis(4000), Duration.ofMillis(3000), Duration.ofMillis(200));

  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void capabilities() {
    ClusterFixtures.registerNodeCapabilities(server);
  }

  private Node labelled(String name, Map<String, String> labels) {
    return new NodeBuilder(node(name, RHEL, "v1.31.4"))
        .editMetadata()
        .addToLabels(labels)
        .endMetadata()
        .build();
  }

  private Map<String, String> labels(String name) {
    return client.nodes().withName(name).get().getMetadata().getLabels();
  }

  /** The whole publisher, as the webhook runs it: informers, view, lease, CapabilityLabels. */
  @Test
  void thePublisherCorrectsItsOwnKeysAndLeavesAnotherReleasesKeyAlone() throws Exception {
    client
        .nodes()
        .resource(
            labelled(
                "rhel-1",
                Map.of(
                    FUTURE,
                    "available",
                    PREFIX + "iptables-nft",
                    "unavailable",
                    PREFIX + "cni",
                    "ready")))
        .create();
    MeshConfig config = ConfigLoader.fromYaml("policy:\n  publishLabels: true\n");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (LiveCluster live =
        new LiveCluster(
            new KubernetesClientBuilder().withConfig(client.getConfiguration()).build(),
            "the mock API server",
            config,
            ClusterSettings.from(config),
            "mesh-injector",
            FAST)) {
      live.start(registry);
      await(
          "the node's labels follow its verdicts",
          LIMIT,
          () -> "supported".equals(labels("rhel-1").get(PREFIX + "native-sidecar")));
      // one merge patch carries the whole difference: had it removed the key, it is gone by now
      assertThat(labels("rhel-1"))
          .containsEntry(FUTURE, "available")
          .containsEntry(PREFIX + "iptables-nft", "available")
          .containsEntry(PREFIX + "iptables-legacy", "unavailable")
          .containsEntry(PREFIX + "cni", "unknown")
          .containsEntry("kubernetes.io/hostname", "rhel-1");

      // and the key that stays is no difference: once the informer has the patched node, no
      // further patch goes out for it
      String patched = client.nodes().withName("rhel-1").get().getMetadata().getResourceVersion();
      await(
          "the informer saw the patch",
          LIMIT,
          () ->
              live.caches()
                  .node("rhel-1")
                  .map(n -> patched.equals(n.getMetadata().getResourceVersion()))
                  .orElse(false));
      await("the patch counted", LIMIT, () -> patchesSent(registry) >= 1);
      Thread.sleep(500);
      assertThat(patchesSent(registry)).isEqualTo(1);
    }
  }

  private static double patchesSent(SimpleMeterRegistry registry) {
    return registry.get("mesh_injector_label_patches").tag("result", "ok").counter().count();
  }

  /**
   * The writer over {@link CapabilityLabels#labels}, the function the publisher's reader builds its
   * comparison with, for what the verdicts alone never produce: a known key no longer wanted.
   */
  @Test
  void aKnownKeyNoLongerWantedIsRemovedAndAnUnknownOneKept() throws Exception {
    client
        .nodes()
        .resource(
            labelled(
                "rhel-1",
                Map.of(
                    FUTURE,
                    "available",
                    PREFIX + "iptables-nft",
                    "unavailable",
                    PREFIX + "cni",
                    "ready")))
        .create();
    Map<String, String> wanted =
        Map.of(PREFIX + "iptables-nft", "available", PREFIX + "iptables-legacy", "unavailable");
    OneNode subject = new OneNode(client, "rhel-1", wanted);
    try (LabelWriter writer =
        new LabelWriter(
            client, List.of(subject), Duration.ofMillis(100), LabelWriter.Ticker.SYSTEM)) {
      writer.startLeading();
      await(
          "the writer patched the node",
          LIMIT,
          () -> subject.patches.get() > 0 || subject.failure != null);
    }
    assertThat(subject.failure).isNull();

    assertThat(labels("rhel-1"))
        .containsEntry(FUTURE, "available")
        .containsEntry(PREFIX + "iptables-nft", "available")
        .containsEntry(PREFIX + "iptables-legacy", "unavailable")
        .containsEntry("kubernetes.io/hostname", "rhel-1");
    // the merge patch removes the key (the mock keeps it with a null value, a real server drops it)
    assertThat(labels("rhel-1").get(PREFIX + "cni")).isNull();
    assertThat(subject.sent).containsEntry(PREFIX + "cni", null).doesNotContainKey(FUTURE);
  }

  /** One node whose wanted labels are given, read live from the API server. */
  private static final class OneNode implements LabelSubject {
    final KubernetesClient client;
    final String name;
    final Map<String, String> wanted;
    final AtomicInteger patches = new AtomicInteger();
    volatile Map<String, String> sent = Map.of();
    volatile KubernetesClientException failure;

    OneNode(KubernetesClient client, String name, Map<String, String> wanted) {
      this.client = client;
      this.name = name;
      this.wanted = wanted;
    }

    @Override
    public String thread() {
      return "test-labels";
    }

    @Override
    public String starting() {
      return "test";
    }

    @Override
    public void onChange(Consumer<String> listener) {}

    @Override
    public Collection<String> names() {
      return List.of(name);
    }

    @Override
    public Function<String, Optional<Labels>> reader() {
      return n ->
          Optional.ofNullable(client.nodes().withName(n).get())
              .map(node -> CapabilityLabels.labels(wanted, node));
    }

    @Override
    public Resource<Node> object(String n) {
      return client.nodes().withName(n);
    }

    @Override
    public int patchesPerSecond() {
      return 0;
    }

    @Override
    public void patched(String n, Map<String, String> patch) {
      sent = new HashMap<>(patch);
      patches.incrementAndGet();
    }

    @Override
    public void failed(String n, KubernetesClientException e, boolean warn) {
      failure = e;
    }
  }
}
