package io.meshinjector.webhook.cli.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.check.ProxyDrift;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.templates.TemplateConfig;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checks of what happens after admission, against fabric8's mock server: the data plane's drift
 * from the installed release, and the sources of the view the webhook's ServiceAccount may not
 * read. The API server's own answers (RBAC, the SubjectAccessReview) are proven in CheckIT.
 */
@EnableKubernetesMockClient(crud = true)
class AfterAdmissionChecksTest {
  static final String NS = "mesh-injector";
  static final String FULLNAME = "mi-mesh-injector";
  static final String CONFIG = "proxy: {version: v2}\n";

  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void release() {
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .resource(
            new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(FULLNAME)
                .endMetadata()
                .addNewWebhook()
                .withName(InstallChecks.WEBHOOK_ENTRY)
                .withNewClientConfig()
                .withUrl("https://127.0.0.1:1/mutate")
                .endClientConfig()
                .endWebhook()
                .build())
        .create();
    client
        .configMaps()
        .inNamespace(NS)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(FULLNAME + "-config")
                .withNamespace(NS)
                .endMetadata()
                .addToData("config.yaml", CONFIG)
                .build())
        .create();
    for (String ns : List.of("shop", "legacy")) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(ns)
                  .withAnnotations(
                      ns.equals("legacy")
                          ? Map.of("config.linkerd.io/proxy-version", "v0")
                          : Map.of())
                  .endMetadata()
                  .build())
          .create();
    }
  }

  static String digest() {
    return TemplateConfig.from(ConfigLoader.fromYaml(CONFIG)).configDigest();
  }

  Pod running(String ns, String name, String rs, String version, String digest) {
    Map<String, String> a = new HashMap<>();
    a.put(Annotations.DECISION, "init/nft native-sidecar await");
    a.put(Annotations.LINKERD_PROXY_VERSION, version);
    if (digest != null) {
      a.put(Annotations.CONFIG_DIGEST, digest);
    }
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(ns)
            .withName(name)
            .withAnnotations(a)
            .endMetadata()
            .withNewSpec()
            .withNodeName("n1")
            .addNewContainer()
            .withName("app")
            .endContainer()
            .endSpec();
    if (rs != null) {
      b.editMetadata()
          .addToLabels("pod-template-hash", "5f6d")
          .addNewOwnerReference()
          .withKind("ReplicaSet")
          .withName(rs + "-5f6d")
          .withController(true)
          .endOwnerReference()
          .endMetadata();
    }
    Pod pod = b.withNewStatus().withPhase("Running").endStatus().build();
    running.add(pod);
    return pod;
  }

  /**
   * The running pods, as the API server answers check's one list: the mock's CRUD mode does not
   * select on status.phase, so the list is answered as the API server would.
   */
  final List<Pod> running = new ArrayList<>();

  void answerRunningPods() {
    server
        .expect()
        .get()
        .withPath("/api/v1/pods?resourceVersion=0&fieldSelector=status.phase%3DRunning")
        .andReturn(
            200, new PodListBuilder().withNewMetadata().endMetadata().withItems(running).build())
        .always();
  }

  List<CheckResult> group(String group) {
    answerRunningPods();
    return new ClusterChecks(client, NS, Clock.systemUTC())
        .installed(Optional.empty()).stream().filter(r -> r.group().equals(group)).toList();
  }

  @Test
  void podsOnTheOldProxyAreNamedByNamespaceAndWorkloadWithTheRestart() {
    running("shop", "web-5f6d-a", "web", "v1", "sha256:0000000000000000");
    running("shop", "web-5f6d-b", "web", "v1", "sha256:0000000000000000");
    running("shop", "api-5f6d-a", "api", "v2", digest());
    running("shop", "old-5f6d-a", "old", "v2", null);
    running("legacy", "pinned-5f6d-a", "pinned", "v0", digest());

    List<CheckResult> lines = group(ProxyDrift.GROUP);
    assertThat(lines).hasSize(1);
    CheckResult web = lines.get(0);
    assertThat(web.status()).isEqualTo("warn");
    assertThat(web.name())
        .isEqualTo("2 pods of Deployment/web in namespace shop run an outdated proxy");
    assertThat(web.detail())
        .contains("proxy v1 where the release gives v2")
        .contains("another config than the release's (" + digest() + ")");
    assertThat(web.hint()).isEqualTo("kubectl rollout restart deployment/web -n shop");
  }

  @Test
  void aDataPlaneOnTheReleaseCountsPinsAndUnknownsAndPasses() {
    running("shop", "api-5f6d-a", "api", "v2", digest());
    running("shop", "old-5f6d-a", "old", "v2", null);
    running("legacy", "pinned-5f6d-a", "pinned", "v0", digest());
    List<CheckResult> lines = group(ProxyDrift.GROUP);
    assertThat(lines).extracting(CheckResult::status).containsExactly("pass");
    assertThat(lines.get(0).detail())
        .startsWith("3 running injected pods, 1 pinning their proxy, 1 unknown");
  }

  void cniDaemonSet() {
    client
        .apps()
        .daemonSets()
        .inNamespace("linkerd-cni")
        .resource(
            new DaemonSetBuilder()
                .withNewMetadata()
                .withName("linkerd-cni")
                .withNamespace("linkerd-cni")
                .endMetadata()
                .build())
        .create();
  }

  void reviewsAnswer(boolean allowed) {
    SubjectAccessReview answer =
        new SubjectAccessReviewBuilder().withNewStatus().withAllowed(allowed).endStatus().build();
    server
        .expect()
        .post()
        .withPath("/apis/authorization.k8s.io/v1/subjectaccessreviews")
        .andReturn(201, answer)
        .always();
  }

  @Test
  void aMeshCniTheWebhookMayNotReadIsAWarningNamingHelmUpgrade() {
    cniDaemonSet();
    reviewsAnswer(false);
    List<CheckResult> lines = group(ViewChecks.GROUP);
    CheckResult cni =
        lines.stream().filter(r -> r.name().contains("mesh CNI")).findFirst().orElseThrow();
    assertThat(cni.status()).isEqualTo("warn");
    assertThat(cni.name()).isEqualTo("the webhook can read the mesh CNI's pods in linkerd-cni");
    assertThat(cni.detail())
        .contains(
            "the ServiceAccount "
                + NS
                + "/"
                + FULLNAME
                + " may not list, watch pods in linkerd-cni");
    assertThat(cni.hint())
        .contains("installed after mesh-injector")
        .contains("helm upgrade mi -n " + NS);
  }

  @Test
  void aMeshCniTheWebhookMayReadPassesAndNoMeshCniIsNothingToRead() {
    reviewsAnswer(true);
    assertThat(group(ViewChecks.GROUP))
        .filteredOn(r -> r.name().contains("mesh CNI"))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo("pass");
              assertThat(r.detail()).contains("nothing to read yet");
            });
    cniDaemonSet();
    assertThat(group(ViewChecks.GROUP))
        .filteredOn(r -> r.name().contains("mesh CNI"))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo("pass");
              assertThat(r.detail())
                  .contains("may list and watch them")
                  .contains("the replicas' own view was not read (no Deployment)");
            });
  }

  @Test
  void aMissingCrdIsAWarningWithItsFix() {
    reviewsAnswer(true);
    assertThat(group(ViewChecks.GROUP))
        .filteredOn(r -> r.name().contains("NodeCapabilities"))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo("warn");
              assertThat(r.hint()).contains("kubectl apply -f", "crd-nodecapabilities.yaml");
            });
  }

  @Test
  void theSyncedGaugeIsReadFromTheReplicasMetrics() {
    String text =
        "# HELP mesh_injector_cluster_source_synced 1 once\n"
            + "mesh_injector_cluster_source_synced{source=\"nodes\"} 1.0\n"
            + "mesh_injector_cluster_source_synced{source=\"cni-pods\"} 0.0\n";
    ViewChecks.Metrics metrics =
        new ViewChecks.Metrics(List.of(text, text.replace("0.0", "1.0")), "");
    assertThat(metrics.report("cni-pods").answered()).isEqualTo(2);
    assertThat(metrics.report("cni-pods").synced()).isEqualTo(1);
    assertThat(metrics.report("cni-pods").describe())
        .isEqualTo("the replicas say: synced on 1 of 2");
    assertThat(ViewChecks.gauge(text, "nodecapabilities")).isEmpty();
  }

  @Test
  void aNodeWhoseCniPodIsReadyButWhosePublishedLabelIsNotIsNamed() {
    cniDaemonSet();
    reviewsAnswer(true);
    var config = ConfigLoader.fromYaml(CONFIG);
    InMemoryClusterView view =
        new InMemoryClusterView(config.engine().capabilities(), warning -> {});
    view.upsert(
        new NodeBuilder()
            .withNewMetadata()
            .withName("n1")
            .addToLabels("capability.mesh-injector.io/cni", "unknown")
            .endMetadata()
            .build());
    view.upsert(
        new NodeBuilder()
            .withNewMetadata()
            .withName("n2")
            .addToLabels("capability.mesh-injector.io/cni", "ready")
            .endMetadata()
            .build());
    view.setCniReady("n1", true);
    view.setCniReady("n2", true);
    List<CheckResult> lines =
        new ViewChecks(client, NS)
            .blindSpots(
                FULLNAME,
                client.apps().deployments().inNamespace(NS).withName(FULLNAME).get(),
                config,
                Optional.of(view.nodes(Instant.now())),
                view.cniReadyNodes());
    CheckResult cni =
        lines.stream().filter(r -> r.name().contains("mesh CNI")).findFirst().orElseThrow();
    assertThat(cni.status()).isEqualTo("warn");
    assertThat(cni.detail())
        .contains("may list and watch pods in linkerd-cni, yet")
        .contains("Ready there but not in the published labels: n1 (published cni=unknown)")
        .doesNotContain("n2");
    assertThat(cni.hint()).contains("the replicas' logs say why");
  }

  @Test
  void theReplicasSyncedGaugeIsAskedThroughThePodProxy() {
    cniDaemonSet();
    reviewsAnswer(true);
    client
        .apps()
        .deployments()
        .inNamespace(NS)
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName(FULLNAME)
                .withNamespace(NS)
                .addToLabels("app.kubernetes.io/instance", "mi")
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("app", "webhook")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "webhook")
                .endMetadata()
                .withNewSpec()
                .withServiceAccountName("injector")
                .addNewContainer()
                .withName("webhook")
                .addNewPort()
                .withName("metrics")
                .withContainerPort(9090)
                .endPort()
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
    for (String name : List.of("replica-a", "replica-b")) {
      client
          .pods()
          .inNamespace(NS)
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(NS)
                  .addToLabels("app", "webhook")
                  .endMetadata()
                  .build())
          .create();
      client
          .pods()
          .inNamespace(NS)
          .withName(name)
          .editStatus(
              p -> {
                p.setStatus(
                    new PodStatusBuilder()
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .endCondition()
                        .build());
                return p;
              });
      server
          .expect()
          .get()
          .withPath("/api/v1/namespaces/" + NS + "/pods/" + name + ":9090/proxy/metrics")
          .andReturn(
              200,
              "mesh_injector_cluster_source_synced{source=\"cni-pods\"} "
                  + (name.endsWith("a") ? "1.0" : "0.0")
                  + "\nmesh_injector_cluster_source_synced{source=\"nodecapabilities\"} 1.0\n")
          .always();
    }
    List<CheckResult> lines = group(ViewChecks.GROUP);
    CheckResult cni =
        lines.stream().filter(r -> r.name().contains("mesh CNI")).findFirst().orElseThrow();
    assertThat(cni.status()).isEqualTo("warn");
    assertThat(cni.detail())
        .contains("yet the replicas say: synced on 1 of 2")
        .doesNotContain("may not");
    CheckResult caps =
        lines.stream().filter(r -> r.name().contains("NodeCapabilities")).findFirst().orElseThrow();
    // the CRD is missing in the mock: the fix for it comes first
    assertThat(caps.hint()).contains("crd-nodecapabilities.yaml");
  }
}
