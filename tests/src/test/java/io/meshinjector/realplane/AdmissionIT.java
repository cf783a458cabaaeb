package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.plane.ApiServerMetrics;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.Cli;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.ServedRelease;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.Workloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * Admission as the API server performs it: the chart's webhook configuration, pointed at one
 * replica running on the chart's ServiceAccount, pods made by the real controllers and placed by
 * the real scheduler, on a cluster mixing RHEL 8 (nft only), CentOS 7 (legacy only, kubelet 1.27)
 * and Debian nodes (no facts).
 */
@ResourceLock(SharedPlane.PLANE_LANE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdmissionIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String LABEL = "capability.mesh-injector.io/";
  static final Map<String, String> ENABLED = Map.of("inject", "enabled");
  static final ObjectMapper JSON = new ObjectMapper();

  static Serve serve;
  static KubernetesClient admin;

  @BeforeAll
  static void installAndServe() throws Exception {
    admin = PLANE.admin();
    FakeNodes.createRhel8(admin, Map.of("pool", "rhel"), "rhel-1", "rhel-2");
    FakeNodes.create(
        admin,
        "centos-1",
        FakeNodes.Shape.of(FakeNodes.CENTOS7, "v1.27.16", Map.of("pool", "centos")));
    FakeNodes.create(
        admin, "deb-1", FakeNodes.Shape.of(FakeNodes.DEBIAN, "v1.32.6", Map.of("pool", "deb")));
    // nft works here, native sidecars do not (kubelet 1.28): long-running pods may land here,
    // pods that run to completion may not
    FakeNodes.create(
        admin, "rhel-old", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.28.15", Map.of("pool", "rhel")));
    // the mesh CNI is installed (its DaemonSet's pods come later): the chart creates its Role
    Workloads.namespace(admin, "linkerd-cni", Map.of(), Map.of());
    serve = ServedRelease.install(PLANE, "mi", NS, Duration.ofSeconds(20)).serve();
    Await.until(
        "capability labels on every node",
        Duration.ofSeconds(20),
        () ->
            admin.nodes().list().getItems().stream()
                .allMatch(n -> n.getMetadata().getLabels().containsKey(LABEL + "iptables-nft")));
    Workloads.namespace(admin, "shop", ENABLED, Map.of());
    // its Jobs: the controller's at each minute, and one the test that reads them makes at once
    admin.batch().v1().cronjobs().inNamespace("shop").resource(nightly()).create();
  }

  static CronJob nightly() {
    return new CronJobBuilder()
        .withNewMetadata()
        .withName("nightly")
        .endMetadata()
        .withNewSpec()
        .withSchedule("* * * * *")
        .withConcurrencyPolicy("Forbid")
        .withNewJobTemplate()
        .withNewSpec()
        .withBackoffLimit(0)
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", "nightly")
        .endMetadata()
        .withSpec(
            new PodSpecBuilder(Workloads.appSpec(Map.of())).withRestartPolicy("Never").build())
        .endTemplate()
        .endSpec()
        .endJobTemplate()
        .endSpec()
        .build();
  }

  @AfterAll
  static void stop() {
    if (serve != null) {
      serve.close();
    }
  }

  /** Creates {@code deployment} in {@code namespace}: its controllers make the pods. */
  static void deploy(String namespace, Deployment deployment) {
    admin.apps().deployments().inNamespace(namespace).resource(deployment).create();
  }

  static String decision(Pod pod) {
    return pod.getMetadata().getAnnotations().getOrDefault("mesh-injector.io/decision", "");
  }

  static List<String> names(List<Container> containers) {
    return containers == null ? List.of() : containers.stream().map(Container::getName).toList();
  }

  @Test
  @Order(1)
  void aDeploymentIsInjectedAndTheSchedulerPlacesItOnlyWhereItsPathWorks() {
    deploy("shop", Workloads.deployment("web", 6, Map.of(), Workloads.appSpec(Map.of())));
    List<Pod> pods = Workloads.scheduled(admin, "shop", "web", 6);
    Map<String, Node> nodes =
        admin.nodes().list().getItems().stream()
            .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
    for (Pod pod : pods) {
      // nft works on RHEL 8 and may on Debian (no facts: unknown counts as viable); not on CentOS 7
      assertThat(decision(pod)).startsWith("init/nft").endsWith("constrained");
      List<String> all = new java.util.ArrayList<>(names(pod.getSpec().getInitContainers()));
      all.addAll(names(pod.getSpec().getContainers()));
      assertThat(all).contains("linkerd-init", "linkerd-proxy", "app");
      Node node = nodes.get(pod.getSpec().getNodeName());
      assertThat(node.getMetadata().getLabels().get(LABEL + "iptables-nft"))
          .as(
              "the nft verdict of %s, where %s was placed",
              node.getMetadata().getName(), pod.getMetadata().getName())
          .isIn("available", "unknown");
      assertThat(pod.getSpec().getNodeName()).isNotEqualTo("centos-1");
    }
    assertThat(pods.stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet()))
        .as("spread over the nodes where nft works")
        .hasSizeGreaterThan(1);
  }

  /**
   * The API server's own count of calls to our webhook, over a Deployment's pods: one each. After
   * our patch the ServiceAccount plugin mounts its token into the proxy, and without the chart's
   * matchCondition the API server would call the webhook a second time per pod.
   */
  @Test
  @Order(1)
  void theApiServerCallsTheWebhookOncePerPod() {
    double before = webhookCalls();
    deploy(
        "shop",
        Workloads.deployment("once", 10, Map.of(), Workloads.appSpec(Map.of("pool", "rhel"))));
    List<Pod> pods = Workloads.podsOf(admin, "shop", "once", 10);
    for (Pod pod : pods) {
      assertThat(decision(pod)).startsWith("init/nft");
    }
    double calls = webhookCalls() - before;
    System.out.printf("AdmissionIT: %.0f webhook calls for 10 pods%n", calls);
    assertThat(calls).isEqualTo(10.0);
  }

  /** apiserver_admission_webhook_admission_duration_seconds_count over our webhook's entries. */
  static double webhookCalls() {
    return webhookCalls(admin);
  }

  static double webhookCalls(KubernetesClient client) {
    return ApiServerMetrics.calls(client, ".mesh-injector.io");
  }

  @Test
  @Order(2)
  void aRefusedPodShowsItsReasonInTheReplicaSetsEvents() {
    deploy(
        "shop",
        Workloads.deployment(
            "old",
            1,
            Map.of("mesh-injector.io/iptables-mode", "nft"),
            Workloads.appSpec(Map.of("pool", "centos"))));
    Await.until(
        "a FailedCreate event of old's ReplicaSet",
        Duration.ofSeconds(30),
        () ->
            failedCreate("shop").stream()
                .anyMatch(e -> e.getMessage().contains("denied the request")),
        () ->
            "events: "
                + admin.v1().events().inNamespace("shop").list().getItems().stream()
                    .map(Event::getMessage)
                    .toList());
    String message =
        failedCreate("shop").stream()
            .map(Event::getMessage)
            .filter(m -> m.contains("denied"))
            .findFirst()
            .orElseThrow();
    assertThat(message).contains("inject.mesh-injector.io").contains("nft").contains("centos-1");
    assertThat(admin.pods().inNamespace("shop").withLabel("app", "old").list().getItems())
        .isEmpty();
  }

  private static List<Event> failedCreate(String namespace) {
    return admin.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> "FailedCreate".equals(e.getReason()))
        .filter(e -> e.getInvolvedObject().getName().startsWith("old-"))
        .toList();
  }

  @Test
  @Order(3)
  void aServerSideDryRunIsInjectedAndNothingIsCreated() {
    Pod dry =
        admin
            .pods()
            .inNamespace("shop")
            .resource(Workloads.pod("dry", Map.of(), Workloads.appSpec(Map.of("pool", "rhel"))))
            .dryRun()
            .create();
    assertThat(decision(dry)).startsWith("init/nft");
    assertThat(names(dry.getSpec().getInitContainers())).contains("linkerd-init");
    assertThat(admin.pods().inNamespace("shop").withName("dry").get()).isNull();
  }

  @Test
  @Order(4)
  void aNamespaceAndItsDeploymentInOneApplyAreInjected() throws Exception {
    Path dir = PLANE.dir("apply");
    Path file =
        Files.writeString(
            dir.resolve("oneshot.yaml"),
            """
            apiVersion: v1
            kind: Namespace
            metadata:
              name: oneshot
              annotations: {inject: enabled}
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: api, namespace: oneshot}
            spec:
              replicas: 2
              selector: {matchLabels: {app: api}}
              template:
                metadata: {labels: {app: api}}
                spec:
                  nodeSelector: {pool: rhel}
                  containers:
                    - {name: app, image: registry.example/api:1.0}
            """);
    Cli.Result apply =
        PLANE.kubectl("apply", Duration.ofSeconds(60), "apply", "-f", file.toString());
    assertThat(apply.exit()).as(apply.err()).isZero();
    for (Pod pod : Workloads.podsOf(admin, "oneshot", "api", 2)) {
      assertThat(decision(pod)).as(pod.getMetadata().getName()).startsWith("init/nft");
    }
  }

  @Test
  @Order(5)
  void aCniPodTurningReadyLabelsItsNodeWithinFiveSecondsAndRestrictedPodsAreThenPlacedThere()
      throws Exception {
    Pod cni =
        admin
            .pods()
            .inNamespace("linkerd-cni")
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("linkerd-cni-deb-1")
                    .addToLabels("k8s-app", "linkerd-cni")
                    .endMetadata()
                    .withSpec(
                        new PodSpecBuilder(Workloads.appSpec(Map.of()))
                            .withNodeName("deb-1")
                            .build())
                    .build())
            .create();
    assertThat(admin.nodes().withName("deb-1").get().getMetadata().getLabels().get(LABEL + "cni"))
        .isNotEqualTo("ready");
    long readyAt = System.nanoTime();
    admin
        .pods()
        .inNamespace("linkerd-cni")
        .withName(cni.getMetadata().getName())
        .editStatus(
            p -> {
              p.getStatus().setPhase("Running");
              p.getStatus()
                  .setConditions(
                      List.of(
                          new PodConditionBuilder().withType("Ready").withStatus("True").build()));
              return p;
            });
    Await.until(
        "deb-1 labelled cni=ready",
        Duration.ofSeconds(5),
        () ->
            "ready"
                .equals(
                    admin
                        .nodes()
                        .withName("deb-1")
                        .get()
                        .getMetadata()
                        .getLabels()
                        .get(LABEL + "cni")),
        () -> KubePlane.tail(serve.log(), 15));
    System.out.printf(
        "AdmissionIT: cni=ready on deb-1 %d ms after its CNI pod turned Ready%n",
        Duration.ofNanos(System.nanoTime() - readyAt).toMillis());

    Workloads.namespace(
        admin, "secure", ENABLED, Map.of("pod-security.kubernetes.io/enforce", "restricted"));
    PodSpec restricted =
        new PodSpecBuilder(Workloads.appSpec(Map.of()))
            .withNewSecurityContext()
            .withRunAsNonRoot(true)
            .withRunAsUser(1000L)
            .withNewSeccompProfile()
            .withType("RuntimeDefault")
            .endSeccompProfile()
            .endSecurityContext()
            .editFirstContainer()
            .withNewSecurityContext()
            .withAllowPrivilegeEscalation(false)
            .withNewCapabilities()
            .withDrop("ALL")
            .endCapabilities()
            .endSecurityContext()
            .endContainer()
            .build();
    deploy("secure", Workloads.deployment("locked", 3, Map.of(), restricted));
    List<Pod> pods = Workloads.scheduled(admin, "secure", "locked", 3);
    for (Pod pod : pods) {
      assertThat(decision(pod)).startsWith("cni");
      assertThat(pod.getSpec().getNodeName()).isEqualTo("deb-1");
    }
  }

  @Test
  @Order(6)
  void explainPreviewsANamespaceOfFiftyWorkloads() throws Exception {
    Workloads.namespace(admin, "preview", Map.of(), Map.of());
    for (int i = 0; i < 50; i++) {
      deploy(
          "preview",
          Workloads.deployment(
              "svc-" + i,
              0,
              Map.of(),
              Workloads.appSpec(i % 5 == 0 ? Map.of("pool", "rhel") : Map.of())));
    }
    Cli.Result explain =
        PLANE.meshInjector(
            "explain", Duration.ofSeconds(60), "explain", "-n", "preview", "-o", "json");
    assertThat(explain.exit()).as(explain.err()).isZero();
    JsonNode rows = JSON.readTree(explain.out());
    assertThat(rows).hasSize(50);
    Set<String> workloads = new java.util.HashSet<>();
    for (JsonNode row : rows) {
      workloads.add(row.path("workload").asText());
      assertThat(row.path("inject").asBoolean()).as(row.toString()).isTrue();
      assertThat(row.path("redirect").asText()).isEqualTo("init");
    }
    assertThat(workloads).contains("preview/Deployment/svc-0", "preview/Deployment/svc-49");
    System.out.println(
        "AdmissionIT: explain -n preview (50 workloads) took " + explain.took().toMillis() + " ms");
  }

  @Test
  @Order(98)
  void aCronJobsPodsAreConstrainedToNativeSidecarNodesAndPlacedThere() throws Exception {
    // the CronJob's Job now, as `kubectl create job --from=cronjob/` makes it (owned by the
    // CronJob, its template), rather than waiting for the controller's next minute; the Job
    // controller makes its pod and the API server sends that through the webhook either way
    Cli.Result job =
        PLANE.kubectl(
            "kubectl",
            Duration.ofSeconds(30),
            "-n",
            "shop",
            "create",
            "job",
            "nightly-now",
            "--from=cronjob/nightly");
    assertThat(job.exit()).as(job.err()).isZero();
    List<Pod> pods = Workloads.scheduled(admin, "shop", "nightly", 1, Duration.ofSeconds(60));
    for (Pod pod : pods) {
      // the proxy must end when the job does: a native sidecar, so only where the kubelet runs them
      assertThat(decision(pod)).contains("native-sidecar").endsWith("constrained");
      Container proxy =
          pod.getSpec().getInitContainers().stream()
              .filter(c -> c.getName().equals("linkerd-proxy"))
              .findFirst()
              .orElseThrow();
      assertThat(proxy.getRestartPolicy()).isEqualTo("Always");
      assertThat(pod.getSpec().getNodeName()).isIn("rhel-1", "rhel-2", "deb-1");
      assertThat(
              admin.nodes().withName(pod.getSpec().getNodeName()).get().getMetadata().getLabels())
          .containsEntry(LABEL + "native-sidecar", "supported");
    }
  }

  @Test
  @Order(99)
  void withTheWebhookDownOnlyNamespacesThatOptedInAreHeldBack() throws Exception {
    Workloads.awaitInjectionLabel(admin, "shop", Duration.ofSeconds(10));
    Workloads.namespace(admin, "plain", Map.of(), Map.of());
    assertThat(admin.namespaces().withName("plain").get().getMetadata().getLabels())
        .doesNotContainKey("mesh-injector.io/injection");
    // dead, as a crashed replica is: nothing answers the API server's call
    serve.kill();
    try {
      long start = System.nanoTime();
      Pod created =
          admin
              .pods()
              .inNamespace("plain")
              .resource(Workloads.pod("free", Map.of(), Workloads.appSpec(Map.of())))
              .create();
      assertThat(created.getMetadata().getUid()).isNotBlank();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThatThrownBy(
              () ->
                  admin
                      .pods()
                      .inNamespace("shop")
                      .resource(Workloads.pod("held", Map.of(), Workloads.appSpec(Map.of())))
                      .create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("failed calling webhook")
          .hasMessageContaining("inject.mesh-injector.io");
      assertThat(admin.pods().inNamespace("shop").withName("held").get()).isNull();
    } finally {
      serve.start().awaitReady(Duration.ofSeconds(30));
    }
    // and back up, the namespace that opted in is injected again
    Pod back =
        admin
            .pods()
            .inNamespace("shop")
            .resource(Workloads.pod("back", Map.of(), Workloads.appSpec(Map.of("pool", "rhel"))))
            .create();
    assertThat(decision(back)).startsWith("init/nft");
  }
}
