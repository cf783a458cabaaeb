package io.meshinjector.webhook.server;

import static io.meshinjector.webhook.support.ClusterFixtures.AL2023;
import static io.meshinjector.webhook.support.ClusterFixtures.CENTOS7;
import static io.meshinjector.webhook.support.ClusterFixtures.CNI_NAMESPACE;
import static io.meshinjector.webhook.support.ClusterFixtures.NODE_CAPABILITIES;
import static io.meshinjector.webhook.support.ClusterFixtures.RHEL;
import static io.meshinjector.webhook.support.ClusterFixtures.await;
import static io.meshinjector.webhook.support.ClusterFixtures.cniPod;
import static io.meshinjector.webhook.support.ClusterFixtures.enabledNamespace;
import static io.meshinjector.webhook.support.ClusterFixtures.node;
import static io.meshinjector.webhook.support.ClusterFixtures.podOn;
import static io.meshinjector.webhook.support.ClusterFixtures.report;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.webhook.cluster.LiveNamespaces;
import io.meshinjector.webhook.controllers.LeaderElection;
import io.meshinjector.webhook.settings.ClusterSettings;
import io.meshinjector.webhook.support.ClusterFixtures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The informer-fed view and the label writer against the fabric8 mock API server in CRUD mode:
 * every change made through the API reaches the decisions, and the labels follow the verdicts.
 */
@EnableKubernetesMockClient(crud = true)
class LiveClusterTest {
  static KubernetesClient client;
  static KubernetesMockServer server;

  static final Duration LIMIT = Duration.ofSeconds(20);
  static final String CNI_LABEL = "capability.mesh-injector.io/cni";
  // spelled out: the chart and users select on this very string
  static final String INJECTION = "mesh-injector.io/injection";
  static final String LEASE_NAMESPACE = "mesh-injector";
  // short enough for a takeover well within LIMIT, long enough that a leader renews in time on two
  // busy cores (at 1.5 s / 1 s a renewal missed under a parallel build and two instances led at
  // once; at 4 s / 3 s a renewal missed at a load average of 15, and the lease changed hands)
  static final LeaderElection.Timing FAST =
      new LeaderElection.Timing(
          Duration.ofMillis(8000), Duration.ofMillis(6000), Duration.ofMillis(200));

  private final List<LiveCluster> started = new ArrayList<>();
  private final Map<LiveCluster, SimpleMeterRegistry> registries = new HashMap<>();

  @BeforeEach
  void cluster() {
    server.reset();
    ClusterFixtures.registerNodeCapabilities(server);
    ClusterFixtures.installRevisionDefault(client);
    client.namespaces().resource(enabledNamespace("shop")).create();
  }

  @AfterEach
  void stop() {
    started.forEach(LiveCluster::close);
  }

  private LiveCluster start(boolean publish) throws InterruptedException {
    return start(publish, "");
  }

  private LiveCluster start(boolean publish, String moreConfig) throws InterruptedException {
    MeshConfig config =
        ConfigLoader.fromYaml("policy:\n  publishLabels: " + publish + "\n" + moreConfig);
    LiveCluster live =
        new LiveCluster(
            new KubernetesClientBuilder().withConfig(client.getConfiguration()).build(),
            "the mock API server",
            config,
            ClusterSettings.from(config),
            LEASE_NAMESPACE,
            FAST);
    started.add(live);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    registries.put(live, registry);
    live.start(registry);
    await("the informers sync", LIMIT, live.health()::synced);
    return live;
  }

  /** Who holds the label writer's Lease, as the API server has it; null when no one does yet. */
  private static String leaseHolder() {
    Lease lease =
        client
            .leases()
            .inNamespace(LEASE_NAMESPACE)
            .withName(ClusterSettings.from(ConfigLoader.defaults()).labelLeaseName())
            .get();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  private static boolean held(String holder) {
    return holder != null && !holder.isEmpty();
  }

  private static String decide(ClusterView view, String node) {
    RuleEngine engine = new RuleEngine(ConfigLoader.defaults().engine(), Clock.systemUTC());
    Decision d = engine.decide("shop/Pod/web", podOn("shop", node), view);
    return d.rejected() ? "refused: " + d.reason().orElse("") : d.summary();
  }

  private static void awaitDecision(ClusterView view, String node, String prefix)
      throws InterruptedException {
    await(
        "decision for a pod on " + node + " starts with '" + prefix + "'",
        LIMIT,
        () -> decide(view, node).startsWith(prefix));
  }

  @Test
  void addingUpdatingAndRemovingNodesChangesDecisions() throws Exception {
    LiveCluster live = start(false);
    ClusterView view = live.view();
    // no such node yet: nothing is known, so the defaults apply
    assertThat(decide(view, "n1")).startsWith("init/nft container");

    client.nodes().resource(node("n1", RHEL, "v1.31.4")).create();
    awaitDecision(view, "n1", "init/nft native-sidecar");

    client.nodes().withName("n1").edit(n -> node("n1", CENTOS7, "v1.27.16"));
    awaitDecision(view, "n1", "init/legacy container");

    client.nodes().withName("n1").delete();
    awaitDecision(view, "n1", "init/nft container");
  }

  @Test
  void creatingUpdatingAndDeletingANodeCapabilityChangesDecisions() throws Exception {
    client.nodes().resource(node("eks-1", AL2023, "v1.31.4")).create();
    LiveCluster live = start(false);
    ClusterView view = live.view();
    // nothing is known of Amazon Linux's iptables: unknown counts as viable, nft preferred
    awaitDecision(view, "eks-1", "init/nft");

    var reports = client.genericKubernetesResources(NODE_CAPABILITIES);
    reports
        .resource(
            report(
                "eks-1",
                Map.of(
                    "iptables-legacy",
                    "available",
                    "iptables-nft",
                    "unavailable",
                    "cni",
                    "absent")))
        .create();
    awaitDecision(view, "eks-1", "init/legacy");

    reports
        .resource(
            report(
                "eks-1",
                Map.of(
                    "iptables-legacy", "available", "iptables-nft", "unavailable", "cni", "ready")))
        .update();
    awaitDecision(view, "eks-1", "cni");

    reports.withName("eks-1").delete();
    awaitDecision(view, "eks-1", "init/nft");
  }

  @Test
  void aCniPodTurningReadyAndUnreadyChangesTheDecisionAndThePublishedLabel() throws Exception {
    client.nodes().resource(node("eks-1", AL2023, "v1.31.4")).create();
    LiveCluster live = start(true);
    await("the only replica holds the lease", LIMIT, () -> held(leaseHolder()));
    await("the cni label is published", LIMIT, () -> "unknown".equals(cniLabel("eks-1")));
    awaitDecision(live.view(), "eks-1", "init/nft");

    var pods = client.pods().inNamespace(CNI_NAMESPACE);
    pods.resource(cniPod("eks-1", false)).create();
    pods.resource(cniPod("eks-1", true)).update();
    long readyAt = System.nanoTime();
    await("cni=ready within 5 s", Duration.ofSeconds(5), () -> "ready".equals(cniLabel("eks-1")));
    assertThat(Duration.ofNanos(System.nanoTime() - readyAt)).isLessThan(Duration.ofSeconds(5));
    awaitDecision(live.view(), "eks-1", "cni");

    pods.resource(cniPod("eks-1", false)).update();
    await("cni label taken back", LIMIT, () -> "unknown".equals(cniLabel("eks-1")));
    awaitDecision(live.view(), "eks-1", "init/nft");

    pods.resource(cniPod("eks-1", true)).update();
    await("cni=ready again", LIMIT, () -> "ready".equals(cniLabel("eks-1")));
    pods.withName("linkerd-cni-eks-1").delete();
    await("deleting the pod takes it back", LIMIT, () -> "unknown".equals(cniLabel("eks-1")));
    awaitDecision(live.view(), "eks-1", "init/nft");

    // other labels are never touched, and the published ones are not read back as input
    Node node = client.nodes().withName("eks-1").get();
    assertThat(node.getMetadata().getLabels()).containsEntry("kubernetes.io/hostname", "eks-1");
  }

  @Test
  void ofTwoInstancesExactlyOnePublishesAndTheOtherTakesOverWhenItStops() throws Exception {
    client.nodes().resource(node("n1", RHEL, "v1.31.4")).create();
    LiveCluster a = start(true);
    LiveCluster b = start(true);
    await("one of the two holds the lease", LIMIT, () -> held(leaseHolder()));
    String first = leaseHolder();
    await("the leader labels n1", LIMIT, () -> "unknown".equals(cniLabel("n1")));
    // counted once the patch call has returned, which can be after the mock server shows the label
    await("the leader counts its patch", LIMIT, () -> patchesSent(a) + patchesSent(b) > 0);
    LiveCluster leader = patchesSent(a) > 0 ? a : b;
    LiveCluster other = leader == a ? b : a;
    assertThat(patchesSent(other)).as("only the lease holder writes").isZero();
    assertThat(leaseHolder()).as("the lease did not change hands").isEqualTo(first);

    leader.close();
    started.remove(leader);
    await(
        "the other takes over the lease",
        LIMIT,
        () -> held(leaseHolder()) && !first.equals(leaseHolder()));
    client.nodes().resource(node("n2", CENTOS7, "v1.27.16")).create();
    await(
        "the new leader labels a new node",
        LIMIT,
        () -> "unsupported".equals(label("n2", "capability.mesh-injector.io/native-sidecar")));
    // as above: the label can be at the mock server before the patch call has returned
    await("the new leader counts its patch", LIMIT, () -> patchesSent(other) > 0);
  }

  @Test
  void thePublisherKeepsToItsRateAndWritesOnlyWhatChanged() throws Exception {
    int nodes = 40;
    for (int i = 0; i < nodes; i++) {
      client.nodes().resource(node("n" + i, RHEL, "v1.31.4")).create();
    }
    long begin = System.nanoTime();
    LiveCluster live = start(true, "webhook:\n  cluster:\n    labelPatchesPerSecond: 10\n");
    await(
        "every node labelled",
        Duration.ofSeconds(30),
        () -> {
          for (int i = 0; i < nodes; i++) {
            if (!"available".equals(label("n" + i, "capability.mesh-injector.io/iptables-nft"))) {
              return false;
            }
          }
          return true;
        });
    // 40 patches at 10 a second take 3.9 s at least, whatever else the machine does
    assertThat(Duration.ofNanos(System.nanoTime() - begin)).isGreaterThan(Duration.ofMillis(3900));
    // the last label can be at the mock server before its patch call has returned and counted
    await("the last patch counted", LIMIT, () -> patchesSent(live) >= nodes);
    assertThat(patchesSent(live)).as("one patch a node").isEqualTo(nodes);

    // a change the verdicts do not depend on (a heartbeat, an annotation) writes nothing
    String edited =
        client
            .nodes()
            .withName("n0")
            .edit(
                n ->
                    new NodeBuilder(n)
                        .editMetadata()
                        .addToAnnotations("example.com/touched", "yes")
                        .endMetadata()
                        .build())
            .getMetadata()
            .getResourceVersion();
    await(
        "the informer saw the edit",
        LIMIT,
        // the label writer reads the node from the informers' caches
        () ->
            live.caches()
                .node("n0")
                .map(n -> edited.equals(n.getMetadata().getResourceVersion()))
                .orElse(false));
    Thread.sleep(500);
    assertThat(patchesSent(live)).isEqualTo(nodes);
    Node n0 = client.nodes().withName("n0").get();
    assertThat(n0.getMetadata().getLabels())
        .containsEntry("capability.mesh-injector.io/native-sidecar", "supported")
        .containsEntry("capability.mesh-injector.io/iptables-legacy", "unavailable")
        .containsEntry("kubernetes.io/hostname", "n0")
        .containsEntry("kubernetes.io/os", "linux");
  }

  @Test
  void theInjectionLabelFollowsTheAnnotationAndTouchesNothingElse() throws Exception {
    // a label this replica did not write, on a namespace that did not opt in: taken away
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName("stale")
                .addToLabels(INJECTION, "disabled")
                .addToLabels("team", "a")
                .endMetadata()
                .build())
        .create();
    client.namespaces().resource(enabledNamespace("kube-system")).create();
    start(false);
    await("the only replica holds the lease", LIMIT, () -> held(leaseHolder()));
    awaitInjectionLabel("shop");
    await("the stale label is taken away", LIMIT, () -> injectionLabel("stale") == null);
    assertThat(client.namespaces().withName("stale").get().getMetadata().getLabels())
        .containsEntry("team", "a");

    // a namespace that opts out loses the label, and one that opts in later gains it
    client
        .namespaces()
        .withName("shop")
        .edit(
            n ->
                new NamespaceBuilder(n)
                    .editMetadata()
                    .addToAnnotations("inject", "disabled")
                    .endMetadata()
                    .build());
    await("shop unlabelled", LIMIT, () -> injectionLabel("shop") == null);
    client.namespaces().resource(enabledNamespace("late")).create();
    awaitInjectionLabel("late");

    // an excluded namespace is never sent to the fail-closed entry, whatever it asks
    assertThat(injectionLabel("kube-system")).isNull();
  }

  @Test
  void aNamespaceTheCacheDoesNotHoldIsReadLiveOnceAndThenServedFromTheCache() throws Exception {
    client.nodes().resource(node("n1", RHEL, "v1.31.4")).create();
    LiveCluster live = start(false);
    awaitInjectionLabel("shop");
    // a cache the watch has not reached yet: the namespace exists only in the API server
    InMemoryClusterView lagging =
        new InMemoryClusterView(ConfigLoader.defaults().engine().capabilities(), warning -> {});
    for (Node n : client.nodes().list().getItems()) {
      lagging.upsertNode(n);
    }
    client.namespaces().resource(enabledNamespace("fresh")).create();
    // the running label writer patches the new namespace's injection label on its own time: wait
    // for it, so that the requests counted below are the view's alone
    awaitInjectionLabel("fresh");
    LiveNamespaces view =
        new LiveNamespaces(lagging, client, io.meshinjector.engine.revisions.Revisions::unknown);

    drainRequests();
    Decision first =
        new RuleEngine(ConfigLoader.defaults().engine(), Clock.systemUTC())
            .decide("fresh/Pod/web", podOn("fresh", "n1"), view);
    assertThat(first.inject()).as(first.summary()).isTrue();
    assertThat(drainRequests()).as("one live read").containsExactly("GET /api/v1/namespaces/fresh");

    Decision second =
        new RuleEngine(ConfigLoader.defaults().engine(), Clock.systemUTC())
            .decide("fresh/Pod/web2", podOn("fresh", "n1"), view);
    assertThat(second.inject()).isTrue();
    assertThat(drainRequests()).as("then from the cache").isEmpty();

    // a namespace that does not exist is absent, not an error
    assertThat(view.namespace("nowhere")).isEmpty();
  }

  @Test
  void aNamespaceInTheCacheCostsNoApiCall() throws Exception {
    client.nodes().resource(node("n1", RHEL, "v1.31.4")).create();
    LiveCluster live = start(false);
    await("shop in the cache", LIMIT, () -> cached(live, "shop"));
    awaitInjectionLabel("shop");
    drainRequests();
    for (int i = 0; i < 50; i++) {
      assertThat(decide(live.view(), "n1")).startsWith("init/nft");
    }
    assertThat(drainRequests()).as("requests during 50 admissions").isEmpty();
  }

  @Test
  void aNamespaceCreatedJustBeforeItsPodIsInjected() throws Exception {
    client.nodes().resource(node("n1", RHEL, "v1.31.4")).create();
    LiveCluster live = start(false);
    Namespace ns = new NamespaceBuilder(enabledNamespace("apply-at-once")).build();
    client.namespaces().resource(ns).create();
    // at once, as a pod of the same kubectl apply would come
    Decision d =
        new RuleEngine(ConfigLoader.defaults().engine(), Clock.systemUTC())
            .decide("apply-at-once/Pod/web", podOn("apply-at-once", "n1"), live.view());
    assertThat(d.inject()).as(d.summary()).isTrue();
  }

  /**
   * The requests the mock server answered since the last call, as "METHOD path", but for the
   * informers' watches (the mock records a watch when it is established, which may be a moment
   * after the informer's list) and the label writer's lease, which it renews on its own clock.
   */
  private static List<String> drainRequests() throws InterruptedException {
    List<String> out = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
      if (!r.getPath().contains("watch=true") && !r.getPath().contains("/leases")) {
        out.add(r.getMethod() + " " + r.getPath());
      }
    }
    return out;
  }

  /** The leader's one write for an enabled namespace, so it is not counted as an admission's. */
  private static void awaitInjectionLabel(String ns) throws InterruptedException {
    await(
        ns + " labelled for the fail-closed webhook entry",
        LIMIT,
        () -> {
          return "enabled".equals(injectionLabel(ns));
        });
  }

  private static String injectionLabel(String ns) {
    var labels = client.namespaces().withName(ns).get().getMetadata().getLabels();
    return labels == null ? null : labels.get(INJECTION);
  }

  private static boolean cached(LiveCluster live, String ns) {
    return live.health().synced()
        && live.view() instanceof LiveNamespaces
        && client.namespaces().withName(ns).get() != null;
  }

  /** What the user reads: mesh_injector_label_patches_total{result="ok"}. */
  private long patchesSent(LiveCluster live) {
    return (long)
        registries
            .get(live)
            .get("mesh_injector_label_patches")
            .tag("result", "ok")
            .counter()
            .count();
  }

  private static String cniLabel(String node) {
    return label(node, CNI_LABEL);
  }

  private static String label(String node, String key) {
    Node n = client.nodes().withName(node).get();
    return n == null || n.getMetadata().getLabels() == null
        ? null
        : n.getMetadata().getLabels().get(key);
  }
}
