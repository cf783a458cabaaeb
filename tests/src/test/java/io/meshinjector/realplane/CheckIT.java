package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.Cli;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.ServiceAccounts;
import io.meshinjector.plane.Workloads;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code mesh-injector check} as an operator runs it, against one cluster through its life: empty
 * before install (as the admin, then as a user with little RBAC), healthy after install with a
 * replica serving on the chart's ServiceAccount, then with a node where no path works, a stale
 * probe report and a running injected pod on that node.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CheckIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String LABEL = "capability.mesh-injector.io/";
  static final ObjectMapper JSON = new ObjectMapper();
  static final ResourceDefinitionContext NODE_CAPABILITY =
      new ResourceDefinitionContext.Builder()
          .withGroup("mesh-injector.io")
          .withVersion("v1alpha1")
          .withKind("NodeCapability")
          .withPlural("nodecapabilities")
          .withNamespaced(false)
          .build();

  static Serve serve;

  static Cli.Result check(Path kubeconfig, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Serve.launcher().toString(), "check"));
    command.addAll(List.of(args));
    Cli.Result r = Cli.run(PLANE.dir("check"), kubeconfig, command, Duration.ofSeconds(90));
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
      serve.stop();
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
    FakeNodes.create(admin, "rhel-1", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
    FakeNodes.create(admin, "rhel-2", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
    int port = KubePlane.freePort();
    Release release = Release.install(PLANE.plane(), "mi", NS, Release.urlValue(port));
    serve = release.replica("replica", PLANE.dir("replica"), port);
    serve.start().awaitReady(Duration.ofSeconds(30));
    Workloads.namespace(admin, "shop", Map.of("inject", "enabled"), Map.of());
    Workloads.awaitInjectionLabel(admin, "shop", Duration.ofSeconds(30));
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
    FakeNodes.create(admin, "broken-1", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
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
    report(
        admin,
        "broken-1",
        Instant.now(),
        Map.of(
            CapabilityKey.IPTABLES_LEGACY, Verdict.UNAVAILABLE,
            CapabilityKey.IPTABLES_NFT, Verdict.UNAVAILABLE,
            CapabilityKey.CNI, Verdict.ABSENT));
    report(
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

  /** A NodeCapability as the probe writes it: the object, then its status subresource. */
  static void report(
      KubernetesClient admin, String node, Instant observedAt, Map<CapabilityKey, Verdict> caps) {
    GenericKubernetesResource created =
        admin
            .genericKubernetesResources(NODE_CAPABILITY)
            .resource(
                new GenericKubernetesResourceBuilder()
                    .withApiVersion("mesh-injector.io/v1alpha1")
                    .withKind("NodeCapability")
                    .withNewMetadata()
                    .withName(node)
                    .endMetadata()
                    .build())
            .create();
    created.setAdditionalProperty(
        "status", new NodeCapabilityStatus(observedAt, caps, Map.of()).toMap());
    admin.genericKubernetesResources(NODE_CAPABILITY).resource(created).updateStatus();
  }
}
