package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.Cli;
import io.meshinjector.plane.ClusterHygiene;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.NodeCapabilities;
import io.meshinjector.plane.PodBurst;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.Soak;
import io.meshinjector.plane.Workloads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The canary upgrade of docs/upgrades.md on the real plane, as a user runs it: two releases
 * installed with plain {@code helm install}, revisions {@code stable} and {@code canary}, their
 * webhooks reached by {@code url}; a namespace moved by its annotation; the tag {@code default}
 * moved with {@code mesh-injector tag set} while pods are being created; the probe handed over;
 * {@code check --retire}; and {@code helm uninstall} of the old revision. Every created pod is
 * counted by the revision it records and by its proxies: one each, never two, never none.
 */
@ResourceLock(SharedPlane.PLANE_LANE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RevisionsIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String PROXY = "linkerd-proxy";
  static final String REVISION = "mesh-injector.io/revision";
  static final String ROUTE = "mesh-injector.io/injection";

  static KubernetesClient admin;
  static Release stable;
  static Release canary;
  static int stablePort;
  static int canaryPort;
  static Serve stableServe;
  static Serve canaryServe;

  /**
   * The values of a release: the first installs the CRD; the one that runs the probe (the primary)
   * writes the namespaces' labels.
   */
  static Map<String, Object> values(int port, String revision, boolean crds, boolean probe) {
    Map<String, Object> v = new HashMap<>(Release.urlValue(port));
    v.put("revision", revision);
    v.put("installCRDs", crds);
    v.put("probe.enabled", probe);
    return v;
  }

  @BeforeAll
  static void installBothRevisions() throws Exception {
    KubePlane plane = PLANE.plane();
    admin = plane.admin();
    FakeNodes.create(
        admin, "rhel-1", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of("pool", "rhel")));
    // 1. stable, the cluster's first release: its leader creates the tag default
    stablePort = KubePlane.freePort();
    stable =
        Release.install(plane, "stable", "mi-stable", values(stablePort, "stable", true, true));
    stableServe = stable.replica("stable", PLANE.dir("stable"), stablePort);
    stableServe.start().awaitReady(Duration.ofSeconds(60));
    Await.until(
        "tag default pointing at stable",
        Duration.ofSeconds(30),
        () -> "stable".equals(tagRevision("default")));
    // 2. canary, beside it
    canaryPort = KubePlane.freePort();
    canary =
        Release.install(plane, "canary", "mi-canary", values(canaryPort, "canary", false, false));
    canaryServe = canary.replica("canary", PLANE.dir("canary"), canaryPort);
    canaryServe.start().awaitReady(Duration.ofSeconds(60));
    for (String ns : List.of("shop", "books")) {
      Workloads.namespace(admin, ns, Map.of("inject", "enabled"), Map.of());
      Workloads.awaitInjectionLabel(admin, ns, Duration.ofSeconds(30));
    }
  }

  @AfterAll
  static void stop() {
    for (Serve s : new Serve[] {canaryServe, stableServe}) {
      if (s != null) {
        s.close();
      }
    }
  }

  static String tagRevision(String tag) {
    MutatingWebhookConfiguration mwc =
        admin
            .admissionRegistration()
            .v1()
            .mutatingWebhookConfigurations()
            .withName("mesh-injector-tag-" + tag)
            .get();
    return mwc == null ? null : mwc.getMetadata().getLabels().get(REVISION);
  }

  static Pod create(String ns, String name, Map<String, String> annotations) {
    return admin
        .pods()
        .inNamespace(ns)
        .resource(Workloads.pod(name, annotations, Workloads.appSpec(Map.of())))
        .create();
  }

  static long proxies(Pod pod) {
    List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
    if (pod.getSpec().getInitContainers() != null) {
      all.addAll(pod.getSpec().getInitContainers());
    }
    return all.stream().filter(c -> PROXY.equals(c.getName())).count();
  }

  static String revisionOf(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a == null ? null : a.get(REVISION);
  }

  static Cli.Result cli(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Serve.launcher().toString()));
    command.addAll(List.of(args));
    Cli.Result r =
        Cli.run(
            PLANE.dir("cli"), PLANE.plane().adminKubeconfigFile(), command, Duration.ofSeconds(90));
    System.out.printf(
        "RevisionsIT: %s exit %d in %d ms%n%s%s",
        String.join(" ", args), r.exit(), r.took().toMillis(), r.out(), r.err());
    return r;
  }

  /** A step of the upgrade, run while pods are created. */
  interface Step {
    void run() throws Exception;
  }

  /**
   * Runs {@code step} while a burst creates pods in {@code ns} (from 2 s before it to 3 s after),
   * and returns the pods it created, counted by the revision each records and its proxies ({@code
   * canary/1 proxy}). Every creation must succeed with exactly one proxy.
   */
  static Map<String, Long> burstDuring(String ns, String name, Step step) throws Exception {
    int minimum = Soak.count(100, 300);
    try (PodBurst burst =
        new PodBurst(
            admin,
            ns,
            name,
            Workloads.appSpec(Map.of()),
            minimum,
            minimum * 4,
            25,
            Duration.ofSeconds(120),
            p -> proxies(p) == 1)) {
      burst.start(4);
      Thread.sleep(2_000);
      step.run();
      // every API server has what the step changed within its cache's refresh
      Thread.sleep(3_000);
      burst.finish();
      Map<String, Long> byRevision =
          admin.pods().inNamespace(ns).withLabel("burst", name).list().getItems().stream()
              .collect(
                  Collectors.groupingBy(
                      p -> revisionOf(p) + "/" + proxies(p) + " proxy",
                      TreeMap::new,
                      Collectors.counting()));
      System.out.printf(
          "RevisionsIT: burst %s in %s: %d created, %d failed; by revision/proxies %s%n",
          name, ns, burst.created(), burst.failures().size(), byRevision);
      assertThat(burst.failures()).isEmpty();
      burst.deletePods();
      return byRevision;
    }
  }

  @Test
  @Order(1)
  void stableInjectsEveryNamespaceThroughTheDefaultTag() {
    for (String ns : List.of("shop", "books")) {
      Pod pod = create(ns, "first", Map.of());
      assertThat(proxies(pod)).isEqualTo(1);
      assertThat(revisionOf(pod)).isEqualTo("stable");
    }
    assertThat(admin.namespaces().withName("shop").get().getMetadata().getLabels())
        .containsEntry(ROUTE, "enabled");
  }

  @Test
  @Order(2)
  void aNamespaceMovedByItsAnnotationGetsCanaryAndAPodMayChooseItsOwn() throws Exception {
    Step move =
        () -> {
          admin
              .namespaces()
              .withName("books")
              .edit(
                  n -> {
                    n.getMetadata().getAnnotations().put("mesh-injector.io/rev", "canary");
                    return n;
                  });
          Await.until(
              "books routed to canary",
              Duration.ofSeconds(30),
              () ->
                  "canary"
                      .equals(
                          admin
                              .namespaces()
                              .withName("books")
                              .get()
                              .getMetadata()
                              .getLabels()
                              .get(ROUTE)));
        };
    if (Soak.enabled()) {
      assertThat(burstDuring("books", "ns-move", move).keySet())
          .containsOnly("stable/1 proxy", "canary/1 proxy");
    } else {
      move.run();
    }
    Pod moved = create("books", "moved", Map.of());
    assertThat(proxies(moved)).isEqualTo(1);
    assertThat(revisionOf(moved)).isEqualTo("canary");
    // the pod's own rev wins over its namespace's, both ways
    assertThat(revisionOf(create("books", "pinned", Map.of("mesh-injector.io/rev", "stable"))))
        .isEqualTo("stable");
    assertThat(revisionOf(create("shop", "early", Map.of("mesh-injector.io/rev", "canary"))))
        .isEqualTo("canary");
    assertThat(revisionOf(create("shop", "still", Map.of()))).isEqualTo("stable");
  }

  @Test
  @Order(3)
  void aRevisionNoReleaseServesIsRefusedByName() {
    assertThatThrownBy(() -> create("shop", "typo", Map.of("mesh-injector.io/rev", "canry")))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("names revision canry, which no release serves");
    Workloads.namespace(
        admin, "retired", Map.of("inject", "enabled", "mesh-injector.io/rev", "retired"), Map.of());
    Await.until(
        "retired labelled with its unknown name",
        Duration.ofSeconds(30),
        () ->
            "retired"
                .equals(
                    admin
                        .namespaces()
                        .withName("retired")
                        .get()
                        .getMetadata()
                        .getLabels()
                        .get(ROUTE)));
    assertThatThrownBy(() -> create("retired", "orphan", Map.of()))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("revision retired, which no release serves");
    admin.namespaces().withName("retired").delete();
  }

  @Test
  @Order(4)
  void theDefaultTagMovesToCanaryWhilePodsAreCreatedAndEachGetsExactlyOneProxy() throws Exception {
    Map<String, Long> byRevision =
        burstDuring(
            "shop",
            "tag-move",
            () -> {
              Cli.Result moved = cli("tag", "set", "default", "--revision", "canary");
              assertThat(moved.exit()).as(moved.err()).isZero();
              Await.until(
                  "tag default pointing at canary",
                  Duration.ofSeconds(10),
                  () -> "canary".equals(tagRevision("default")));
            });
    // injected by one revision or the other, each with one proxy: never twice, never bare
    assertThat(byRevision.keySet()).containsOnly("stable/1 proxy", "canary/1 proxy");
    assertThat(byRevision.get("canary/1 proxy")).isPositive();
    if (Soak.enabled()) {
      // the rollback is the same move the other way, and forward again
      for (String to : List.of("stable", "canary")) {
        Map<String, Long> back =
            burstDuring(
                "shop",
                "tag-to-" + to,
                () -> {
                  Cli.Result moved = cli("tag", "set", "default", "--revision", to);
                  assertThat(moved.exit()).as(moved.err()).isZero();
                });
        assertThat(back.keySet()).containsOnly("stable/1 proxy", "canary/1 proxy");
        assertThat(back.get(to + "/1 proxy")).isPositive();
      }
    }
    assertThat(revisionOf(create("shop", "after-move", Map.of()))).isEqualTo("canary");
  }

  @Test
  @Order(5)
  void aDeadRevisionBlocksOnlyTheNamespacesRoutedToIt() throws Exception {
    Workloads.namespace(
        admin, "legacy", Map.of("inject", "enabled", "mesh-injector.io/rev", "stable"), Map.of());
    Await.until(
        "legacy routed to stable",
        Duration.ofSeconds(30),
        () ->
            "stable"
                .equals(
                    admin
                        .namespaces()
                        .withName("legacy")
                        .get()
                        .getMetadata()
                        .getLabels()
                        .get(ROUTE)));
    // stable stays down from here: nothing follows it but legacy, and it is retired below
    stableServe.kill();
    // asked once: the API server's 500 for a webhook it cannot call is retried by default
    try (KubernetesClient once =
        new io.fabric8.kubernetes.client.KubernetesClientBuilder()
            .withConfig(
                new io.fabric8.kubernetes.client.ConfigBuilder(admin.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      assertThatThrownBy(
              () ->
                  once.pods()
                      .inNamespace("legacy")
                      .resource(Workloads.pod("held", Map.of(), Workloads.appSpec(Map.of())))
                      .create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("failed calling webhook");
    }
    assertThat(revisionOf(create("shop", "unaffected", Map.of()))).isEqualTo("canary");
    assertThat(revisionOf(create("books", "unaffected", Map.of()))).isEqualTo("canary");
    // a namespace that did not opt in reaches only catch-alls, which fail open
    Workloads.namespace(admin, "plain", Map.of(), Map.of());
    assertThat(proxies(create("plain", "bare", Map.of()))).isZero();
    admin.namespaces().withName("legacy").delete();
    Await.until(
        "legacy gone",
        Duration.ofSeconds(60),
        () -> admin.namespaces().withName("legacy").get() == null);
  }

  @Test
  @Order(6)
  void theProbeIsHandedToCanaryWithTwoUpgradesAndNothingIsLost() throws Exception {
    NodeCapabilities.report(
        admin,
        "rhel-1",
        java.time.Instant.now(),
        Map.of(
            io.meshinjector.engine.capability.CapabilityKey.IPTABLES_NFT,
            io.meshinjector.engine.capability.Verdict.AVAILABLE));
    Object status =
        admin
            .genericKubernetesResources(ClusterHygiene.NODE_CAPABILITY)
            .withName("rhel-1")
            .get()
            .getAdditionalProperties()
            .get("status");
    // docs/upgrades.md: first the new owner takes the probe, then the old one lets it go
    Step handover =
        () -> {
          canary.upgrade(values(canaryPort, "canary", false, true));
          stable.upgrade(values(stablePort, "stable", true, false));
        };
    if (Soak.enabled()) {
      // every pod of shop goes to canary (the tag default points at it): the two upgrades must
      // not open a gap there, nor hand a pod to stable
      assertThat(burstDuring("shop", "handover", handover).keySet()).containsOnly("canary/1 proxy");
    } else {
      handover.run();
    }
    // canary's replica reads its new configuration (stable's is down since the step above)
    canaryServe.close();
    canaryServe = canary.replica("canary-primary", PLANE.dir("canary-primary"), canaryPort);
    canaryServe.start().awaitReady(Duration.ofSeconds(60));
    assertThat(
            admin
                .admissionRegistration()
                .v1()
                .validatingAdmissionPolicyBindings()
                .list()
                .getItems()
                .stream()
                .map(b -> b.getMetadata().getName()))
        .contains("canary-mesh-injector-node-capability-writers")
        .doesNotContain("stable-mesh-injector-node-capability-writers");
    // the CRD stays with stable, which installed it, and the measured facts with it
    assertThat(
            admin
                .genericKubernetesResources(ClusterHygiene.NODE_CAPABILITY)
                .withName("rhel-1")
                .get()
                .getAdditionalProperties()
                .get("status"))
        .isEqualTo(status);
    // canary now writes the namespaces' labels
    Workloads.namespace(admin, "newcomer", Map.of("inject", "enabled"), Map.of());
    Workloads.awaitInjectionLabel(admin, "newcomer", Duration.ofSeconds(30));
    // the writer logs once its patch has returned, a moment after the label can be read
    Await.until(
        "canary logs that it labelled newcomer",
        Duration.ofSeconds(10),
        () ->
            canaryServe
                .log()
                .contains("labels: namespace newcomer labelled " + ROUTE + "=enabled"));
    assertThat(revisionOf(create("newcomer", "pod", Map.of()))).isEqualTo("canary");
    admin.namespaces().withName("newcomer").delete();
  }

  @Test
  @Order(7)
  void stableMayBeRetiredOnceNothingUsesItAndIsThenUninstalled() throws Exception {
    Cli.Result busy = cli("check", "--retire", "stable");
    assertThat(busy.exit()).isNotZero();
    assertThat(busy.out() + busy.err()).contains("stable");
    // its pods are replaced, as `check` tells a user to
    for (String ns : List.of("shop", "books")) {
      admin.pods().inNamespace(ns).list().getItems().stream()
          .filter(p -> "stable".equals(revisionOf(p)))
          .forEach(
              p ->
                  admin
                      .pods()
                      .inNamespace(ns)
                      .withName(p.getMetadata().getName())
                      .withGracePeriod(0)
                      .delete());
    }
    Await.until(
        "no pod carries stable",
        Duration.ofSeconds(30),
        () ->
            admin.pods().inAnyNamespace().list().getItems().stream()
                .noneMatch(p -> "stable".equals(revisionOf(p))));
    Cli.Result free = cli("check", "--retire", "stable");
    assertThat(free.exit()).as(free.out() + free.err()).isZero();
    stableServe.close();
    if (Soak.enabled()) {
      assertThat(burstDuring("shop", "uninstall", stable::uninstall).keySet())
          .containsOnly("canary/1 proxy");
    } else {
      stable.uninstall();
    }
    assertThat(tagRevision("default")).isEqualTo("canary");
    assertThat(revisionOf(create("shop", "after-retire", Map.of()))).isEqualTo("canary");
    assertThat(revisionOf(create("books", "after-retire", Map.of()))).isEqualTo("canary");
  }
}
