package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.webhook.manifest.Manifests;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.ClusterFixtures;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.RevisionFixtures;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inject} and {@code explain} without {@code --cluster}: the view read once from the cluster
 * a kubeconfig names (fabric8's CRUD mock server on loopback), and {@code explain -n NS}, the
 * preview of a namespace's workloads.
 */
@EnableKubernetesMockClient(crud = true)
class ClusterExplainTest {
  static final String CLUSTER = Reviews.example("cluster.yaml").toString();
  static final String DEPLOYMENTS = Reviews.example("deployment.yaml").toString();
  static final String RHEL8 = "Red Hat Enterprise Linux 8.10 (Ootpa)";

  KubernetesMockServer server;
  KubernetesClient client;

  @TempDir Path tmp;
  Path kubeconfig;

  @BeforeEach
  void kubeconfigForTheMockServer() throws Exception {
    kubeconfig = kubeconfig(client.getConfiguration().getMasterUrl());
  }

  /** A kubeconfig as kubectl writes it, naming {@code server}. */
  Path kubeconfig(String server) throws Exception {
    return RevisionFixtures.kubeconfig(
        tmp.resolve("kubeconfig-" + Math.abs(server.hashCode())), server);
  }

  void registerNodeCapabilityCrd() {
    // without the status subresource, so that a create keeps the status as the probe wrote it
    server.expectCustomResource(ClusterFixtures.nodeCapabilityCrd(false));
  }

  /** Puts the objects of examples/cluster.yaml into the mock server. */
  void seedTheExampleCluster() throws java.io.IOException {
    registerNodeCapabilityCrd();
    List<HasMetadata> objects;
    // read by fabric8, not by the code under test: a NodeCapability comes as a generic resource
    try (var in = java.nio.file.Files.newInputStream(Path.of(CLUSTER))) {
      objects = client.load(in).items();
    }
    for (HasMetadata o : objects) {
      // the example file dates its probe reports far ahead so they never expire offline; a live
      // view takes a report from the future as unknown, so the cluster gets reports made just now
      if (o instanceof GenericKubernetesResource g
          && g.getAdditionalProperties().get("status") instanceof Map<?, ?> status) {
        @SuppressWarnings("unchecked")
        Map<String, Object> fresh = new LinkedHashMap<>((Map<String, Object>) status);
        fresh.put("observedAt", Instant.now().toString());
        g.getAdditionalProperties().put("status", fresh);
      }
      create(o);
    }
  }

  void create(HasMetadata o) {
    if (o instanceof GenericKubernetesResource g) {
      client.genericKubernetesResources(g.getApiVersion(), g.getKind()).resource(g).create();
    } else {
      client.resource(o).create();
    }
  }

  static Node node(String name, String osImage, Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewStatus()
        .withNewNodeInfo()
        .withOsImage(osImage)
        .withKubeletVersion("v1.31.4")
        .endNodeInfo()
        .endStatus()
        .build();
  }

  static Namespace namespace(String name, Map<String, String> annotations) {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  static String withoutObservedAt(String explainJson) {
    return explainJson.replaceAll("observed [0-9TZ:.-]+", "observed <time>");
  }

  static JsonNode json(Cli.Run run) throws Exception {
    return Manifests.json().readTree(run.out());
  }

  @Test
  void explainAndInjectFromTheKubeconfigDecideAsTheSameClusterInFiles() throws Exception {
    seedTheExampleCluster();

    Cli.Run live =
        Cli.run("explain", "-f", DEPLOYMENTS, "--kubeconfig", kubeconfig.toString(), "-o", "json");
    Cli.Run files = Cli.run("explain", "-f", DEPLOYMENTS, "--cluster", CLUSTER, "-o", "json");

    assertThat(live.code()).as(live.err()).isZero();
    assertThat(files.code()).as(files.err()).isZero();
    JsonNode decisions = json(live);
    assertThat(decisions).hasSize(3);
    // payments runs on the EKS pool, where only the NodeCapability objects say the CNI is ready
    assertThat(decisions.get(2).path("redirect").asText()).isEqualTo("cni");
    // the same decisions, traces included, but for when the probe reports were observed
    assertThat(withoutObservedAt(live.out())).isEqualTo(withoutObservedAt(files.out()));

    Cli.Run injectLive =
        Cli.run("inject", "-f", DEPLOYMENTS, "--kubeconfig", kubeconfig.toString());
    Cli.Run injectFiles = Cli.run("inject", "-f", DEPLOYMENTS, "--cluster", CLUSTER);
    assertThat(injectLive.code()).as(injectLive.err()).isZero();
    assertThat(Manifests.parse(injectLive.out(), "live"))
        .isEqualTo(Manifests.parse(injectFiles.out(), "files"));
  }

  @Test
  void bothSpellingsOfTheInjectAnnotationOnLiveNamespaces() throws Exception {
    create(node("rhel-1", RHEL8, Map.of("pool", "rhel")));
    create(namespace("shop", Map.of("inject", "enabled")));
    create(namespace("alias", Map.of("mesh-injector.io/inject", "enabled")));
    create(namespace("mixed", Map.of("inject", "enabled", "mesh-injector.io/inject", "disabled")));
    String file =
        Path.of(ClusterExplainTest.class.getResource("/manifests/inject-spellings.yaml").toURI())
            .toString();

    Cli.Run run =
        Cli.run("explain", "-f", file, "--kubeconfig", kubeconfig.toString(), "-o", "json");

    assertThat(run.code()).as(run.err()).isZero();
    JsonNode d = json(run);
    assertThat(d.get(0).path("inject").asBoolean()).isTrue();
    assertThat(d.get(1).path("inject").asBoolean()).isTrue();
    assertThat(d.get(2).path("inject").asBoolean()).isFalse();
    assertThat(d.get(2).path("warnings").get(0).asText())
        .contains("inject: enabled and mesh-injector.io/inject: disabled", "disabled wins");
  }

  @Test
  void aReadyCniPodMakesItsNodeCniReadyAndAnUnreadyOneTakesItBack() throws Exception {
    registerNodeCapabilityCrd();
    create(node("rhel-1", RHEL8, Map.of("pool", "rhel")));
    create(namespace("shop", Map.of("inject", "enabled")));
    create(namespace("linkerd-cni", Map.of()));
    Pod cni = ClusterFixtures.cniPod("rhel-1", true);
    create(cni);
    // a pod asking for the CNI path: only a Ready CNI pod on its node lets it have it
    Path pod = tmp.resolve("pod.yaml");
    Files.writeString(
        pod,
        "apiVersion: v1\nkind: Pod\n"
            + "metadata: {name: p, namespace: shop, annotations: {mesh-injector.io/redirect: cni}}\n"
            + "spec: {nodeSelector: {pool: rhel}, containers: [{name: app, image: app:1}]}\n");

    Cli.Run ready =
        Cli.run(
            "explain", "-f", pod.toString(), "--kubeconfig", kubeconfig.toString(), "-o", "json");
    assertThat(ready.code()).as(ready.err()).isZero();
    assertThat(json(ready).get(0).path("redirect").asText()).isEqualTo("cni");
    assertThat(json(ready).get(0).path("trace").toString()).contains("cni ready (live");

    client.resource(ClusterFixtures.cniPod("rhel-1", false)).update();
    Cli.Run unready =
        Cli.run(
            "explain", "-f", pod.toString(), "--kubeconfig", kubeconfig.toString(), "-o", "json");
    assertThat(unready.code()).isEqualTo(ExitCodes.REFUSED);
    assertThat(json(unready).get(0).path("rejected").asBoolean()).isTrue();
    assertThat(unready.err()).contains("refused: shop/Pod/p:");
  }

  @Test
  void aClusterWithoutTheNodeCapabilityCrdHasNoProbeVerdictsAndThatIsNoError() throws Exception {
    create(node("rhel-1", RHEL8, Map.of("pool", "rhel")));
    create(namespace("shop", Map.of("inject", "enabled")));
    // what an API server answers for a resource it does not serve (the CRUD mock lists nothing)
    server
        .expect()
        .get()
        // the list as the CLI reads it: whole, from the API server's watch cache
        .withPath("/apis/mesh-injector.io/v1alpha1/nodecapabilities?resourceVersion=0")
        .andReturn(
            404,
            Map.of(
                "apiVersion", "v1",
                "kind", "Status",
                "status", "Failure",
                "reason", "NotFound",
                "code", 404,
                "message", "the server could not find the requested resource"))
        .always();

    Cli.Run run =
        Cli.run("explain", "-f", DEPLOYMENTS, "--kubeconfig", kubeconfig.toString(), "-o", "json");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(json(run).get(1).path("iptablesMode").asText()).isEqualTo("nft");
    assertThat(run.err())
        .contains(
            "warning: the NodeCapability CRD (nodecapabilities.mesh-injector.io) is not installed");
  }

  // ---- explain -n NS: the preview ----

  static PodTemplateSpec template(String app, Map<String, String> annotations) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .withLabels(Map.of("app", app))
        .withAnnotations(annotations)
        .endMetadata()
        .withSpec(spec(app))
        .build();
  }

  static PodSpec spec(String app) {
    return new PodSpecBuilder()
        .addNewContainer()
        .withName(app)
        .withImage("registry.example/" + app + ":1")
        .endContainer()
        .withRestartPolicy(null)
        .build();
  }

  static ObjectMeta meta(String ns, String name) {
    return new ObjectMetaBuilder().withNamespace(ns).withName(name).build();
  }

  /** staging: not annotated; one workload of each kind, and what the preview must leave out. */
  void seedStaging() {
    create(node("rhel-1", RHEL8, Map.of("pool", "rhel")));
    create(node("rhel-2", RHEL8, Map.of("pool", "rhel")));
    create(namespace("staging", Map.of()));
    create(namespace("other", Map.of()));
    create(
        new DeploymentBuilder()
            .withMetadata(meta("staging", "web"))
            .withNewSpec()
            .withTemplate(template("web", Map.of()))
            .endSpec()
            .build());
    create(
        new DeploymentBuilder()
            .withMetadata(meta("staging", "legacy"))
            .withNewSpec()
            .withTemplate(template("legacy", Map.of("inject", "disabled")))
            .endSpec()
            .build());
    create(
        new StatefulSetBuilder()
            .withMetadata(meta("staging", "db"))
            .withNewSpec()
            .withTemplate(template("db", Map.of()))
            .endSpec()
            .build());
    create(
        new DaemonSetBuilder()
            .withMetadata(meta("staging", "agent"))
            .withNewSpec()
            .withTemplate(template("agent", Map.of()))
            .endSpec()
            .build());
    PodTemplateSpec job = template("migrate", Map.of());
    job.getSpec().setRestartPolicy("Never");
    create(
        new JobBuilder()
            .withMetadata(meta("staging", "migrate"))
            .withNewSpec()
            .withTemplate(job)
            .endSpec()
            .build());
    create(
        new CronJobBuilder()
            .withMetadata(meta("staging", "nightly"))
            .withNewSpec()
            .withSchedule("0 3 * * *")
            .withNewJobTemplate()
            .withNewSpec()
            .withTemplate(job)
            .endSpec()
            .endJobTemplate()
            .endSpec()
            .build());
    // a Job the CronJob made: the CronJob stands for it
    create(
        new JobBuilder()
            .withNewMetadata()
            .withNamespace("staging")
            .withName("nightly-29000000")
            .addNewOwnerReference()
            .withApiVersion("batch/v1")
            .withKind("CronJob")
            .withName("nightly")
            .withUid("0b6b1c1e-0000-4000-8000-000000000001")
            .withController(true)
            .endOwnerReference()
            .endMetadata()
            .withNewSpec()
            .withTemplate(job)
            .endSpec()
            .build());
    // a Deployment's ReplicaSet, and a workload of another namespace: not in the preview
    create(
        new ReplicaSetBuilder()
            .withMetadata(meta("staging", "web-6d4cf56db6"))
            .withNewSpec()
            .withTemplate(template("web", Map.of()))
            .endSpec()
            .build());
    create(
        new DeploymentBuilder()
            .withMetadata(meta("other", "elsewhere"))
            .withNewSpec()
            .withTemplate(template("elsewhere", Map.of()))
            .endSpec()
            .build());
  }

  static List<String> workloads(JsonNode decisions) {
    List<String> out = new ArrayList<>();
    decisions.forEach(d -> out.add(d.path("workload").asText()));
    return out;
  }

  @Test
  void previewsEveryWorkloadOfANamespaceAsIfItWereEnabledAndWritesNothing() throws Exception {
    seedStaging();

    Cli.Run run =
        Cli.run("explain", "-n", "staging", "--kubeconfig", kubeconfig.toString(), "-o", "json");

    assertThat(run.code()).as(run.err()).isZero();
    JsonNode d = json(run);
    assertThat(workloads(d))
        .containsExactly(
            "staging/Deployment/legacy",
            "staging/Deployment/web",
            "staging/StatefulSet/db",
            "staging/DaemonSet/agent",
            "staging/Job/migrate",
            "staging/CronJob/nightly");
    // the pod template's own inject: disabled still wins
    assertThat(d.get(0).path("inject").asBoolean()).isFalse();
    assertThat(d.get(0).path("reason").asText()).isEqualTo("injection disabled by the pod");
    for (int i = 1; i < d.size(); i++) {
      assertThat(d.get(i).path("inject").asBoolean()).as(d.get(i).toString()).isTrue();
      assertThat(d.get(i).path("redirect").asText()).isEqualTo("init");
      assertThat(d.get(i).path("iptablesMode").asText()).isEqualTo("nft");
      assertThat(d.get(i).path("trace").toString())
          .contains("injection enabled by the namespace staging (inject: enabled)");
    }
    assertThat(run.err()).contains("preview of namespace staging on", "nothing is written");
    // nothing was written: staging carries no annotation still
    assertThat(client.namespaces().withName("staging").get().getMetadata().getAnnotations())
        .isNullOrEmpty();

    Cli.Run all =
        Cli.run(
            "explain",
            "-n",
            "staging",
            "--all",
            "--kubeconfig",
            kubeconfig.toString(),
            "-o",
            "json");
    assertThat(all.code()).as(all.err()).isZero();
    assertThat(json(all)).isEqualTo(d);

    Cli.Run text = Cli.run("explain", "-n", "staging", "--kubeconfig", kubeconfig.toString());
    assertThat(text.code()).as(text.err()).isZero();
    // the same table as explain -f prints
    assertThat(text.out().lines().findFirst().orElse(""))
        .startsWith("WORKLOAD")
        .contains("OUTCOME", "PATH", "MODE", "PROXY", "AWAIT", "NODES", "CLASSES", "CONSTRAINT");
    assertThat(text.out())
        .containsPattern("staging/Deployment/legacy +skip injection-disabled")
        .containsPattern(
            "staging/CronJob/nightly +inject +init +nft +native-sidecar +yes +2 +1 +-");
    System.out.println("$ mesh-injector explain -n staging\n" + text.err() + text.out());
  }

  @Test
  void aPreviewWithAWorkloadThatWouldBeRefusedExitsThree() throws Exception {
    seedStaging();
    create(
        new DeploymentBuilder()
            .withMetadata(meta("staging", "wants-cni"))
            .withNewSpec()
            .withTemplate(template("wants-cni", Map.of("mesh-injector.io/redirect", "cni")))
            .endSpec()
            .build());

    Cli.Run run =
        Cli.run("explain", "-n", "staging", "--kubeconfig", kubeconfig.toString(), "-o", "json");

    assertThat(run.code()).isEqualTo(ExitCodes.REFUSED);
    // Deployments by name: legacy, wants-cni, web
    JsonNode refused = json(run).get(1);
    assertThat(refused.path("workload").asText()).isEqualTo("staging/Deployment/wants-cni");
    assertThat(refused.path("rejected").asBoolean()).isTrue();
    assertThat(run.err()).contains("refused: staging/Deployment/wants-cni: no redirect path works");
  }

  @Test
  void aNamespaceThatDoesNotExistIsNamed() {
    create(node("rhel-1", RHEL8, Map.of()));

    Cli.Run run = Cli.run("explain", "-n", "nope", "--kubeconfig", kubeconfig.toString());

    assertThat(run.code()).isEqualTo(ExitCodes.INPUT);
    assertThat(run.err().strip()).startsWith("error: namespace nope not found in the cluster at ");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void aClusterThatCannotBeReachedIsOneLineNamingItAndTheKubeconfig() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    Path unreachable = kubeconfig("https://127.0.0.1:" + closed);

    for (String[] args :
        List.of(
            new String[] {"explain", "-f", DEPLOYMENTS},
            new String[] {"inject", "-f", DEPLOYMENTS},
            new String[] {"explain", "-n", "shop"})) {
      List<String> argv = new ArrayList<>(List.of(args));
      argv.addAll(List.of("--kubeconfig", unreachable.toString()));
      Cli.Run run = Cli.run(argv.toArray(String[]::new));

      assertThat(run.code()).as(argv.toString()).isEqualTo(ExitCodes.INPUT);
      assertThat(run.err().strip().lines()).as(argv.toString()).hasSize(1);
      assertThat(run.err())
          .startsWith(
              "error: cannot read the cluster at https://127.0.0.1:"
                  + closed
                  + "/ (from "
                  + unreachable
                  + "): ")
          .contains("failed");
      assertThat(run.out()).isEmpty();
    }
  }

  @Test
  void aKubeconfigThatIsNotThereIsNamed() {
    Cli.Run run =
        Cli.run("explain", "-f", DEPLOYMENTS, "--kubeconfig", tmp.resolve("none").toString());

    assertThat(run.code()).isEqualTo(ExitCodes.INPUT);
    assertThat(run.err()).contains("--kubeconfig " + tmp.resolve("none") + ": no such file");
  }

  @Test
  void explainNeedsAFileOrANamespaceAndAllTakesNoFile() {
    Cli.Run neither = Cli.run("explain");
    assertThat(neither.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(neither.err()).contains("give -f FILE to explain manifests, or -n NS to preview");

    Cli.Run both = Cli.run("explain", "-f", DEPLOYMENTS, "--all", "-n", "shop");
    assertThat(both.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(both.err()).contains("--all previews the namespace's workloads from the cluster");
  }
}
