package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.Cli;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.NodeCapabilities;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.ServedRelease;
import io.meshinjector.plane.ServiceAccounts;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.Workloads;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code mesh-injector check} as an operator runs it, against one cluster through its life: empty
 * before install (as the admin, then as a user with little RBAC), healthy after install with a
 * replica serving on the chart's ServiceAccount, then with a node where no path works, a stale
 * probe report and a running injected pod on that node; then a {@code helm upgrade} of the proxy
 * version (the workloads still on the old proxy are named) and the mesh CNI installed after the
 * injector (a warning naming {@code helm upgrade}, gone after it).
 */
@ResourceLock(SharedPlane.PLANE_LANE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CheckIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String LABEL = "capability.mesh-injector.io/";
  static final ObjectMapper JSON = new ObjectMapper();

  static Serve serve;
  static Release release;

  static Cli.Result check(Path kubeconfig, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("check"));
    command.addAll(List.of(args));
    Cli.Result r =
        Cli.meshInjector(
            PLANE.dir("check"), kubeconfig, Duration.ofSeconds(90), command.toArray(String[]::new));
    System.out.printf(
        "CheckIT: check %s exit %d in %d ms%n%s%s",
        String.join(" ", args), r.exit(), r.took().toMillis(), r.out(), r.err());
    return r;
  }

  static Path admin() {
    return PLANE.plane().adminKubeconfigFile();
  }

  @AfterAll
  static void stop() {
    if (serve != null) {
      serve.close();
    }
  }

  @Test
  @Order(1)
  void preOnAnEmptyClusterReportsWhatItFindsAndPasses() throws Exception {
    Cli.Result text = check(admin(), "--pre");
    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("kubernetes-api\n--------------\n√ API server version: v" + KubePlane.VERSION)
        .contains("√ can create everything the chart installs")
        .contains("‼ nodes: none found")
        .contains("‼ mesh CNI DaemonSet present: none in namespace linkerd-cni")
        .contains("Status check results are √");

    Cli.Result json = check(admin(), "--pre", "-o", "json");
    assertThat(json.exit()).isZero();
    JsonNode doc = JSON.readTree(json.out());
    assertThat(doc.get("success").asBoolean()).isTrue();
    assertThat(doc.get("checks")).isNotEmpty();
    for (JsonNode c : doc.get("checks")) {
      assertThat(c.get("status").asText()).isIn("pass", "warn");
    }
  }

  @Test
  @Order(2)
  void preFailsWhenTheInstallerMayNotCreateWhatTheChartInstalls() throws Exception {
    KubernetesClient admin = PLANE.plane().admin();
    // a user who may look at the cluster but create nothing
    admin
        .serviceAccounts()
        .inNamespace("default")
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("viewer").endMetadata().build())
        .create();
    admin
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("check-viewer")
                .endMetadata()
                .addNewRule()
                .withApiGroups("", "apps", "mesh-injector.io")
                .withResources("nodes", "namespaces", "pods", "daemonsets", "nodecapabilities")
                .withVerbs("get", "list")
                .endRule()
                .build())
        .create();
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("check-viewer")
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName("check-viewer")
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("viewer")
                .withNamespace("default")
                .endSubject()
                .build())
        .create();
    Path viewer = ServiceAccounts.kubeconfig(PLANE.plane(), "default", "viewer");
    Cli.Result r = check(viewer, "--pre");
    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(5);
    assertThat(r.out())
        .contains(
            "× can create customresourcedefinitions.apiextensions.k8s.io: denied for the current"
                + " user\n    see: install as a user with cluster-admin")
        .contains("× can create mutatingwebhookconfigurations.admissionregistration.k8s.io")
        .contains("× can create deployments.apps in " + NS)
        .doesNotContain("can create everything the chart installs")
        // what it may read is still reported
        .contains("‼ nodes: none found")
        .contains("Status check results are ×");
  }

  @Test
  @Order(3)
  void afterAHealthyInstallEveryCheckPassesOrWarns() throws Exception {
    KubernetesClient admin = PLANE.plane().admin();
    FakeNodes.createRhel8(admin, Map.of(), "rhel-1", "rhel-2");
    ServedRelease mi = ServedRelease.install(PLANE, "mi", NS, Duration.ofSeconds(30));
    release = mi.release();
    serve = mi.serve();
    Workloads.optedIn(admin, "shop", Duration.ofSeconds(30));
    runningInjectedPod(admin, "web-1", "rhel-1");

    Cli.Result r = check(admin());
    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    assertThat(r.out())
        .contains("√ the NodeCapability CRD is established")
        .contains("√ the webhook configuration exists: mi-mesh-injector")
        .contains("√ the webhook's caBundle verifies the serving certificate")
        .contains("√ the serving certificate names the host the API server calls: 127.0.0.1")
        .contains("√ the serving certificate is valid")
        .contains("√ the API server calls the webhook: a dry-run pod in shop: init/nft")
        .contains("√ a redirect path works on every node: 2 nodes")
        .contains("√ every running injected pod's path still works on its node: 1 running")
        // no kubelet runs the Deployment here: the replica serves from outside it, at the url
        .contains("‼ webhook replicas ready: 0 of")
        .contains("Status check results are √");
  }

  @Test
  @Order(4)
  void aNodeWithoutAPathAStaleReportAndAPodAtRiskAreEachReportedWithTheirHint() throws Exception {
    KubernetesClient admin = PLANE.plane().admin();
    FakeNodes.createRhel8(admin, Map.of(), "broken-1");
    Await.until(
        "the view holds broken-1 (its capability labels are published)",
        Duration.ofSeconds(30),
        () ->
            admin
                .nodes()
                .withName("broken-1")
                .get()
                .getMetadata()
                .getLabels()
                .containsKey(LABEL + "iptables-nft"));
    // injected while nft still worked there; then the probe finds it does not any more
    Pod atRisk = runningInjectedPod(admin, "web-2", "broken-1");
    NodeCapabilities.report(
        admin,
        "broken-1",
        Instant.now(),
        Map.of(
            CapabilityKey.IPTABLES_LEGACY, Verdict.UNAVAILABLE,
            CapabilityKey.IPTABLES_NFT, Verdict.UNAVAILABLE,
            CapabilityKey.CNI, Verdict.ABSENT));
    NodeCapabilities.report(
        admin,
        "rhel-2",
        Instant.now().minus(Duration.ofDays(2)),
        Map.of(CapabilityKey.IPTABLES_NFT, Verdict.AVAILABLE));

    Cli.Result r = check(admin());
    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(5);
    assertThat(r.out())
        .contains("‼ no redirect path works on node broken-1: cni needs cni absent (probe")
        .contains("init/nft needs iptables-nft unavailable (probe")
        .contains("    see: an injected pod cannot start there; install the mesh CNI plugin")
        .contains("‼ the probe report of node rhel-2 is stale: reported 2d0h ago")
        .contains("    see: its verdicts count as unknown; check the probe pod on that node")
        .contains(
            "× 1 pods at risk in namespace shop: "
                + atRisk.getMetadata().getName()
                + " on broken-1 (init/nft: iptables-nft unavailable")
        .contains("    see: they run now, but a restart on that node would fail")
        .contains("√ the API server calls the webhook")
        .contains("Status check results are ×");

    Cli.Result json = check(admin(), "-o", "json");
    assertThat(json.exit()).isEqualTo(5);
    JsonNode doc = JSON.readTree(json.out());
    assertThat(doc.get("success").asBoolean()).isFalse();
    List<String> failed = new ArrayList<>();
    for (JsonNode c : doc.get("checks")) {
      if (c.get("status").asText().equals("fail")) {
        failed.add(c.get("check").asText());
        assertThat(c.get("hint").asText()).isNotBlank();
      }
    }
    assertThat(failed).containsExactly("1 pods at risk in namespace shop");
  }

  static final String NEW_PROXY = "edge-26.6.1";

  @Test
  @Order(5)
  void afterAHelmUpgradeOfTheProxyVersionCheckNamesTheWorkloadsStillOnTheOldProxy()
      throws Exception {
    KubernetesClient admin = PLANE.plane().admin();
    // admitted before the upgrade: the pods the plane's controllers create for a Deployment and a
    // StatefulSet, Running by their status (no kubelet here)
    admin.apps().deployments().inNamespace("shop").resource(deployment("web", 2)).create();
    admin
        .apps()
        .statefulSets()
        .inNamespace("shop")
        .resource(Workloads.statefulSet("db", Workloads.appSpec(Map.of())))
        .create();
    List<Pod> web = running(admin, "web", 2);
    running(admin, "db", 1);
    String oldVersion = web.get(0).getMetadata().getAnnotations().get("linkerd.io/proxy-version");
    assertThat(oldVersion).isNotBlank().isNotEqualTo(NEW_PROXY);

    release.upgrade(upgradedValues());
    // the replicas restart on a new config (the chart's checksum); this one is outside a kubelet,
    // and what check reads does not depend on how the old one ended: no drain to wait out
    int port = serve.port();
    serve.kill();
    serve = release.replica("replica-upgraded", PLANE.dir("replica-upgraded"), port);
    serve.start().awaitReady(Duration.ofSeconds(30));
    admin.apps().deployments().inNamespace("shop").resource(deployment("api", 1)).create();
    Pod fresh = running(admin, "api", 1).get(0);
    assertThat(fresh.getMetadata().getAnnotations())
        .containsEntry("linkerd.io/proxy-version", NEW_PROXY);

    Cli.Result r = check(admin());
    assertThat(r.out())
        .contains(
            "‼ 2 pods of Deployment/web in namespace shop run an outdated proxy: proxy "
                + oldVersion
                + " where the release gives "
                + NEW_PROXY
                + "; injected with another config than the release's ("
                + fresh.getMetadata().getAnnotations().get("mesh-injector.io/config-digest")
                + ")\n    see: kubectl rollout restart deployment/web -n shop")
        .contains(
            "‼ 1 pods of StatefulSet/db in namespace shop run an outdated proxy: proxy "
                + oldVersion
                + " where the release gives "
                + NEW_PROXY)
        .contains("    see: kubectl rollout restart statefulset/db -n shop")
        // the bare pod of the tests before
        .contains("‼ 1 pods of Pod/web-1 in namespace shop run an outdated proxy")
        .doesNotContain("Deployment/api");
  }

  @Test
  @Order(6)
  void theMeshCniInstalledAfterTheInjectorIsAWarningNamingHelmUpgrade() throws Exception {
    KubernetesClient admin = PLANE.plane().admin();
    // installed without the CNI's namespace, so the chart made no Role there (cniPodsRole: auto)
    assertThat(
            admin
                .rbac()
                .roles()
                .inNamespace("linkerd-cni")
                .withName(release.fullname() + "-cni-pods")
                .get())
        .isNull();
    Workloads.namespace(admin, "linkerd-cni", Map.of(), Map.of());
    admin
        .apps()
        .daemonSets()
        .inNamespace("linkerd-cni")
        .resource(
            new DaemonSetBuilder()
                .withNewMetadata()
                .withName("linkerd-cni")
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("k8s-app", "linkerd-cni")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("k8s-app", "linkerd-cni")
                .endMetadata()
                .withSpec(Workloads.appSpec(Map.of()))
                .endTemplate()
                .endSpec()
                .build())
        .create();

    // the check's line before and after the fix, but for its verdict
    String canRead =
        "the webhook can read the mesh CNI's pods in linkerd-cni: the ServiceAccount"
            + " mesh-injector/"
            + release.serviceAccount();
    Cli.Result before = check(admin());
    assertThat(before.out())
        .contains("‼ " + canRead + " may not list, watch pods in linkerd-cni (SubjectAccessReview)")
        .contains(
            "    see: the mesh CNI was installed after mesh-injector, so the chart's Role in"
                + " linkerd-cni was not created: run helm upgrade mi -n "
                + NS);

    // the fix it names: the upgrade creates the Role, and the API server then allows the reads
    release.upgrade(upgradedValues());
    Cli.Result after = check(admin());
    assertThat(after.out())
        .contains(canRead + " may list and watch")
        .doesNotContain("may not list, watch pods in linkerd-cni");
  }

  static Map<String, Object> upgradedValues() {
    Map<String, Object> values = new HashMap<>(Release.urlValue(serve.port()));
    values.put("config.proxy.version", NEW_PROXY);
    return values;
  }

  static Deployment deployment(String name, int replicas) {
    return Workloads.deployment(name, replicas, Map.of(), Workloads.appSpec(Map.of()));
  }

  /**
   * The controller's pods of {@code app} in shop, once {@code count} exist, each admitted through
   * the webhook and then Running by its status, as a kubelet would report it: a merge patch of the
   * status alone, without the resourceVersion, as the scheduler binds them meanwhile.
   */
  static List<Pod> running(KubernetesClient admin, String app, int count) {
    List<Pod> out = new ArrayList<>();
    for (Pod pod : Workloads.podsOf(admin, "shop", app, count)) {
      assertThat(pod.getMetadata().getAnnotations())
          .as("injected at admission")
          .containsKey("mesh-injector.io/decision");
      Pod status = new Pod();
      status.setMetadata(
          new ObjectMetaBuilder()
              .withName(pod.getMetadata().getName())
              .withNamespace("shop")
              .build());
      status.setStatus(new PodStatusBuilder().withPhase("Running").build());
      admin.pods().inNamespace("shop").resource(status).patchStatus();
      out.add(pod);
    }
    return out;
  }

  /** A pod admitted through the webhook, bound to {@code node}, Running by its status. */
  static Pod runningInjectedPod(KubernetesClient admin, String name, String node) {
    Pod pod =
        admin
            .pods()
            .inNamespace("shop")
            .resource(
                Workloads.pod(
                    name,
                    Map.of(),
                    new PodSpecBuilder(Workloads.appSpec(Map.of())).withNodeName(node).build()))
            .create();
    assertThat(pod.getMetadata().getAnnotations())
        .as("injected at admission")
        .containsKey("mesh-injector.io/decision");
    // no kubelet: the status says what a kubelet would
    return admin
        .pods()
        .inNamespace("shop")
        .withName(name)
        .editStatus(
            p -> {
              p.getStatus().setPhase("Running");
              return p;
            });
  }
}
