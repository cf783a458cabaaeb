package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.RealNode;
import io.meshinjector.plane.RealNodePlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.ServiceAccounts;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.StandInImage;
import io.meshinjector.plane.Workloads;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The per-node repair (docs/operations.md#repair) on the real control plane and the real node: the
 * chart installed (its RBAC and ValidatingAdmissionPolicy), its webhook as a replica on the host
 * (the API server calls it by URL), the probe run on the host as {@code bin/mesh-injector probe
 * --repair ...} with a token of the chart's probe ServiceAccount bound to a pod on the real node
 * (the node-name claim the policy reads), and pods the kubelet really runs. Their validator is a
 * stand-in under Linkerd's container name and command that exits 95, as Linkerd's does where no CNI
 * rewrote the pod's traffic (none runs here); the healthy pods take the init path.
 *
 * <p>One plane and node for the class; the probe is stopped and started between the modes.
 */
@ResourceLock(SharedPlane.NODE_LANE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RepairIT {
  @RegisterExtension static final RealNodePlane PLANE = new RealNodePlane(false);

  static final String NS = "mesh-injector";
  static final String SHOP = "shop";
  static final String APP_IMAGE = "registry.example/app:1.0";
  static final String FAKE = "rhel-1";
  static final Map<String, String> ON_REAL_NODE = Map.of("kubernetes.io/hostname", RealNode.NAME);
  static final Map<String, String> CNI = Map.of("mesh-injector.io/redirect", "cni");
  static final Map<String, String> INIT = Map.of("mesh-injector.io/redirect", "init");

  static KubernetesClient admin;
  static Release release;
  static Serve serve;
  static Path realNodeProbe;
  static Path fakeNodeProbe;
  static Process probe;
  static Path probeLog;
  static int metricsPort;

  /** The pods of the report phase, by name: the repair phase compares against them. */
  static Pod brokenDeploymentPod;

  static Pod jobPod;
  static Pod neverJobPod;
  static Pod healthyPod;

  @BeforeAll
  static void install() throws Exception {
    Path busybox = StandInImage.busyboxDeb();
    Assumptions.assumeTrue(
        busybox != null,
        "no busybox-static package from the image build (./mvnw -B -Pimage-tar -pl webhook -am"
            + " package): the stand-in image cannot be built");
    KubePlane plane = PLANE.plane();
    admin = plane.admin();
    FakeNodes.create(admin, FAKE, FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
    int port = KubePlane.freePort();
    release = Release.install(plane, "mi", NS, values(port));
    serve = release.replica("replica", PLANE.dir("replica"), port);
    serve.start().awaitReady(Duration.ofSeconds(30));
    Await.until(
        "the cni=ready label the override gives " + RealNode.NAME,
        Duration.ofSeconds(30),
        () ->
            "ready"
                .equals(
                    admin
                        .nodes()
                        .withName(RealNode.NAME)
                        .get()
                        .getMetadata()
                        .getLabels()
                        .get("capability.mesh-injector.io/cni")));
    Workloads.namespace(admin, SHOP, Map.of("inject", "enabled"), Map.of());
    Workloads.awaitInjectionLabel(admin, SHOP, Duration.ofSeconds(60));
    // the proxy's image name as the webhook renders it, for the stand-in
    Pod rendered =
        admin.pods().inNamespace(SHOP).resource(Workloads.pod("dry", CNI, app())).dryRun().create();
    String proxyImage = container(rendered, "linkerd-proxy").getImage();
    assertThat(container(rendered, "linkerd-network-validator").getImage()).isEqualTo(proxyImage);
    PLANE
        .node()
        .importImage(
            StandInImage.build(PLANE.dir("stand-in"), busybox, List.of(proxyImage, APP_IMAGE)));

    // the probe's identity on each node: the chart's ServiceAccount, a token bound to a pod there
    String probeSa = release.fullname() + "-probe";
    realNodeProbe =
        ServiceAccounts.kubeconfigBoundTo(
            plane, NS, probeSa, identityPod("probe-" + RealNode.NAME, RealNode.NAME, probeSa));
    fakeNodeProbe =
        ServiceAccounts.kubeconfigBoundTo(
            plane, NS, probeSa, identityPod("probe-" + FAKE, FAKE, probeSa));
  }

  /**
   * The chart's values here: the webhook reached by URL (a replica on the host), the chart's probe
   * DaemonSet kept off every node (the test runs the probe itself, mode by mode), and the mesh CNI
   * declared ready on the real node by an operator override, so pods may take the CNI path there,
   * where no CNI runs and the validator fails as it does after a node's reboot.
   */
  static Path values(int port) throws IOException {
    return Files.writeString(
        PLANE.dir("values").resolve("values.yaml"),
        "admissionWebhook:\n"
            + "  url: https://127.0.0.1:"
            + port
            + "/mutate\n"
            + "probe:\n"
            + "  nodeSelector:\n"
            + "    mesh-injector.io/test: no-node\n"
            + "  repair:\n"
            + "    mode: repair\n"
            + "config:\n"
            + "  capabilities:\n"
            + "    overrides:\n"
            + "      - nodeSelector: {kubernetes.io/hostname: "
            + RealNode.NAME
            + "}\n"
            + "        set: {cni: ready}\n");
  }

  static Pod identityPod(String name, String node, String sa) {
    return admin
        .pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withSpec(
                    new PodSpecBuilder(app())
                        .withNodeSelector(Map.of())
                        .withServiceAccountName(sa)
                        .withNodeName(node)
                        .build())
                .build())
        .create();
  }

  /** An app the stand-in image runs: a shell that sleeps, on the real node. */
  static PodSpec app() {
    return new PodSpecBuilder()
        .withNodeSelector(ON_REAL_NODE)
        .withTerminationGracePeriodSeconds(2L)
        .addNewContainer()
        .withName("app")
        .withImage(APP_IMAGE)
        .withImagePullPolicy("Never")
        .withCommand("/bin/sh", "-c", "exec sleep 3600")
        .endContainer()
        .build();
  }

  static Job job(String name, String restartPolicy) {
    return new JobBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withBackoffLimit(6)
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", name)
        .withAnnotations(CNI)
        .endMetadata()
        .withSpec(new PodSpecBuilder(app()).withRestartPolicy(restartPolicy).build())
        .endTemplate()
        .endSpec()
        .build();
  }

  @AfterAll
  static void stop() {
    stopProbe();
    if (serve != null) {
      serve.close();
    }
  }

  @Test
  @Order(1)
  void reportChangesNothingAndRecordsTheEvent() throws Exception {
    admin
        .apps()
        .deployments()
        .inNamespace(SHOP)
        .resource(Workloads.deployment("broken", 1, CNI, app()))
        .create();
    admin
        .apps()
        .deployments()
        .inNamespace(SHOP)
        .resource(Workloads.deployment("healthy", 1, INIT, app()))
        .create();
    admin.batch().v1().jobs().inNamespace(SHOP).resource(job("batch", "OnFailure")).create();
    admin.batch().v1().jobs().inNamespace(SHOP).resource(job("once", "Never")).create();
    admin.pods().inNamespace(SHOP).resource(Workloads.pod("bare", CNI, app())).create();

    brokenDeploymentPod = awaitBroken("broken");
    jobPod = awaitBroken("batch");
    neverJobPod = awaitBroken("once");
    Pod bare = awaitBroken("bare");
    healthyPod = awaitReady("healthy");
    // what the kubelet recorded is the stand-in validator's failure, as the Event will quote it
    ContainerStatus validator =
        status(brokenDeploymentPod, "linkerd-network-validator").orElseThrow();
    assertThat(terminatedExit(validator)).isEqualTo(StandInImage.VALIDATOR_EXIT_CODE);

    startProbe("report", 3);
    Event reported = awaitEvent(brokenDeploymentPod, "MeshRedirectBroken");
    assertThat(reported.getMessage())
        .contains(
            "linkerd-network-validator exited 95",
            StandInImage.VALIDATOR_MESSAGE,
            "node " + RealNode.NAME,
            "Repair mode is report: nothing was changed");
    assertThat(reported.getType()).isEqualTo("Warning");
    assertThat(reported.getReportingComponent()).isEqualTo("mesh-injector-repair");
    awaitEvent(jobPod, "MeshRedirectBroken");
    awaitEvent(neverJobPod, "MeshRedirectBroken");
    assertThat(awaitEvent(bare, "MeshRedirectBroken").getMessage())
        .contains("reported, not deleted");
    // nothing changed: the same pods, none terminating
    for (Pod p : List.of(brokenDeploymentPod, jobPod, bare, healthyPod)) {
      Pod now = admin.pods().inNamespace(SHOP).withName(p.getMetadata().getName()).get();
      assertThat(now).as(p.getMetadata().getName()).isNotNull();
      assertThat(now.getMetadata().getUid()).isEqualTo(p.getMetadata().getUid());
      assertThat(now.getMetadata().getDeletionTimestamp()).isNull();
    }
    assertThat(events(healthyPod)).isEmpty();
    // the Deployment's pod and each failed pod of the two Jobs
    assertThat(metric("reported")).isGreaterThanOrEqualTo(3.0);
    assertThat(metric("bare-pod")).isEqualTo(1.0);
    assertThat(metric("replaced")).isZero();
    stopProbe();
  }

  @Test
  @Order(2)
  void repairReplacesControlledPodsOnceReportsTheBarePodAndLeavesTheReadyPod() throws Exception {
    startProbe("repair", 3);
    // the Deployment's pod: deleted (UID precondition), recreated, admitted again by the webhook
    Event repaired = awaitEvent(brokenDeploymentPod, "MeshRedirectRepaired");
    assertThat(repaired.getMessage())
        .contains("linkerd-network-validator exited 95", "Deleted it (UID precondition)");
    awaitGone(brokenDeploymentPod);
    Pod replacement = awaitReplacement("broken", brokenDeploymentPod);
    assertThat(replacement.getMetadata().getAnnotations())
        .as("the replacement admitted by the webhook")
        .containsKey("mesh-injector.io/injector-version");
    assertThat(container(replacement, "linkerd-network-validator")).isNotNull();
    // ... which fails the same way on the same node: reported, not replaced again
    Pod replacementBroken = awaitBroken("broken", replacement.getMetadata().getUid());
    Event again = awaitEvent(replacementBroken, "MeshRedirectBrokenOnNode");
    assertThat(again.getMessage())
        .contains("failed the same way on this node", "The node's redirect path is the problem");

    // the Job's pod (restartPolicy OnFailure: the kubelet would retry it in place forever)
    awaitEvent(jobPod, "MeshRedirectRepaired");
    awaitGone(jobPod);
    Pod jobReplacement = awaitReplacement("batch", jobPod);
    assertThat(jobReplacement.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("Job");

    // the bare pod: reported, never deleted
    Pod bare = admin.pods().inNamespace(SHOP).withName("bare").get();
    assertThat(
            events(bare).stream().filter(e -> e.getReason().equals("MeshRedirectBroken")).count())
        .as("reported again by the new probe")
        .isGreaterThanOrEqualTo(2);

    // no loop: the replacement stays, and the repair deleted nothing more in one resync and a
    // margin
    Thread.sleep(PodRepairResync.MILLIS + 2_000);
    Pod stillThere =
        admin.pods().inNamespace(SHOP).withName(replacement.getMetadata().getName()).get();
    assertThat(stillThere).isNotNull();
    assertThat(stillThere.getMetadata().getDeletionTimestamp()).isNull();
    assertThat(
            admin
                .pods()
                .inNamespace(SHOP)
                .withName("bare")
                .get()
                .getMetadata()
                .getDeletionTimestamp())
        .isNull();
    Pod healthy = admin.pods().inNamespace(SHOP).withName(healthyPod.getMetadata().getName()).get();
    assertThat(healthy.getMetadata().getUid()).isEqualTo(healthyPod.getMetadata().getUid());
    assertThat(events(healthy)).isEmpty();
    // the Job with restartPolicy Never (istio#49210): its failed pod replaced too, as the Job's
    // later pods, failing the same way, are not
    // later pods, failing the same way, are not. With Never the Job has made a new pod after
    // each failure, so several of its failed pods are there: one is replaced, whichever the
    // watch handed over first, and the others are held by the backoff
    List<Event> onceRepaired = new ArrayList<>();
    Await.until(
        "a failed pod of Job once replaced",
        Duration.ofSeconds(60),
        () -> {
          onceRepaired.clear();
          onceRepaired.addAll(repairEvents("once-", "MeshRedirectRepaired"));
          return !onceRepaired.isEmpty();
        },
        RepairIT::probeLog);
    assertThat(onceRepaired).hasSize(1);
    Pod replacedOnce =
        new PodBuilder()
            .withNewMetadata()
            .withName(onceRepaired.get(0).getInvolvedObject().getName())
            .withUid(onceRepaired.get(0).getInvolvedObject().getUid())
            .endMetadata()
            .build();
    awaitGone(replacedOnce);
    assertThat(metric("replaced")).isEqualTo(3.0);
    assertThat(metric("backoff")).isGreaterThanOrEqualTo(1.0);
    assertThat(metric("bare-pod")).isEqualTo(1.0);
  }

  @Test
  @Order(3)
  void theRateLimitHoldsPerNodePerMinute() throws Exception {
    stopProbe();
    // a new probe remembers no earlier repair (its ledger is in memory): the pods still broken
    // here, of three controllers, all ask at once, and one a minute may go
    startProbe("repair", 1);
    Await.until(
        "one pod replaced and the others of other controllers held by the limit",
        Duration.ofSeconds(60),
        () -> metric("replaced") == 1.0 && metric("rate-limited") >= 1.0,
        RepairIT::probeLog);
    List<Event> limited =
        admin.v1().events().inNamespace(SHOP).list().getItems().stream()
            .filter(e -> "mesh-injector-repair".equals(e.getReportingComponent()))
            .filter(e -> e.getMessage().contains("in the last minute (the limit is 1)"))
            .toList();
    assertThat(limited).isNotEmpty();
    for (Event e : limited) {
      Pod held = admin.pods().inNamespace(SHOP).withName(e.getInvolvedObject().getName()).get();
      assertThat(held).as(e.getInvolvedObject().getName()).isNotNull();
      assertThat(held.getMetadata().getUid()).isEqualTo(e.getInvolvedObject().getUid());
      assertThat(held.getMetadata().getDeletionTimestamp()).isNull();
    }
    Thread.sleep(2_000);
    assertThat(metric("replaced")).isEqualTo(1.0);
    stopProbe();
  }

  @Test
  @Order(4)
  void theApiServerKeepsEachProbesDeletesToItsOwnNode() throws Exception {
    // a pod bound to the fake node, its status set as a kubelet there would (no kubelet runs it)
    Pod onFake =
        admin
            .pods()
            .inNamespace(SHOP)
            .resource(
                Workloads.pod(
                    "on-fake-node",
                    Map.of(),
                    new PodSpecBuilder(app())
                        .withNodeSelector(Map.of("kubernetes.io/hostname", FAKE))
                        .build()))
            .create();
    Await.until(
        "on-fake-node bound to " + FAKE,
        Duration.ofSeconds(30),
        () ->
            FAKE.equals(
                admin
                    .pods()
                    .inNamespace(SHOP)
                    .withName("on-fake-node")
                    .get()
                    .getSpec()
                    .getNodeName()));
    Pod bound = admin.pods().inNamespace(SHOP).withName("on-fake-node").get();
    bound
        .getStatus()
        .setInitContainerStatuses(
            List.of(
                new io.fabric8.kubernetes.api.model.ContainerStatusBuilder()
                    .withName("linkerd-init")
                    .withImage(APP_IMAGE)
                    .withImageID("")
                    .withReady(false)
                    .withRestartCount(3)
                    .withNewState()
                    .withNewWaiting()
                    .withReason("CrashLoopBackOff")
                    .endWaiting()
                    .endState()
                    .withNewLastState()
                    .withNewTerminated()
                    .withExitCode(1)
                    .withReason("Error")
                    .endTerminated()
                    .endLastState()
                    .build()));
    admin.pods().inNamespace(SHOP).resource(bound).updateStatus();
    Pod onRealNode =
        admin.pods().inNamespace(SHOP).withName(healthyPod.getMetadata().getName()).get();
    // the probe of the real node running, as in the DaemonSet
    startProbe("repair", 3);

    try (KubernetesClient asRealNode = client(realNodeProbe);
        KubernetesClient asFakeNode = client(fakeNodeProbe)) {
      // node A's probe, a pod of node B
      assertThatThrownBy(
              () -> asRealNode.pods().inNamespace(SHOP).withName("on-fake-node").delete())
          .isInstanceOfSatisfying(
              KubernetesClientException.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(403);
                assertThat(e.getMessage())
                    .contains(
                        "the node probe on "
                            + RealNode.NAME
                            + " may delete only pods bound to "
                            + RealNode.NAME
                            + ", not shop/on-fake-node on "
                            + FAKE);
              });
      // node B's probe, a pod of node A
      assertThatThrownBy(
              () ->
                  asFakeNode
                      .pods()
                      .inNamespace(SHOP)
                      .withName(onRealNode.getMetadata().getName())
                      .delete())
          .isInstanceOfSatisfying(
              KubernetesClientException.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(403);
                assertThat(e.getMessage()).contains("may delete only pods bound to " + FAKE);
              });
      // no eviction right at all: the policy could not see the evicted pod's node
      boolean evicted;
      try {
        evicted =
            asRealNode
                .pods()
                .inNamespace(SHOP)
                .withName(onRealNode.getMetadata().getName())
                .evict(
                    new EvictionBuilder()
                        .withNewMetadata()
                        .withName(onRealNode.getMetadata().getName())
                        .withNamespace(SHOP)
                        .endMetadata()
                        .build());
      } catch (KubernetesClientException e) {
        assertThat(e.getCode()).isEqualTo(403);
        evicted = false;
      }
      assertThat(evicted).isFalse();
      assertThat(
              admin
                  .pods()
                  .inNamespace(SHOP)
                  .withName(onRealNode.getMetadata().getName())
                  .get()
                  .getMetadata()
                  .getDeletionTimestamp())
          .isNull();
    }
    // the real node's probe watches its node's pods only: the broken status on the fake node is
    // never seen, so neither reported nor deleted
    Thread.sleep(3_000);
    assertThat(events(admin.pods().inNamespace(SHOP).withName("on-fake-node").get())).isEmpty();
    assertThat(admin.pods().inNamespace(SHOP).withName("on-fake-node").get().getMetadata().getUid())
        .isEqualTo(onFake.getMetadata().getUid());
    assertThat(probeLog()).doesNotContain("on-fake-node");
    stopProbe();
  }

  // ---- the probe on the host ----

  /**
   * How long the repair's informer takes to hand a pod back: {@code --repair-resync}, shortened
   * from its 20 s default so that a check that nothing more happens waits one such interval.
   */
  static final class PodRepairResync {
    static final long MILLIS = 3_000;
  }

  static void startProbe(String mode, int perMinute) throws IOException {
    metricsPort = KubePlane.freePort();
    probeLog = PLANE.dir("probe").resolve("probe-" + mode + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(
                Serve.launcher().toString(),
                "probe",
                "--node",
                RealNode.NAME,
                "--host-root",
                "/",
                "--interval",
                "1h",
                "--repair",
                mode,
                "--repair-per-minute",
                String.valueOf(perMinute),
                "--repair-backoff",
                "10m",
                "--repair-resync",
                PodRepairResync.MILLIS + "ms",
                "--metrics-port",
                String.valueOf(metricsPort))
            .redirectErrorStream(true)
            .redirectOutput(probeLog.toFile());
    pb.environment().remove("KUBERNETES_SERVICE_HOST");
    pb.environment().put("KUBECONFIG", realNodeProbe.toString());
    probe = pb.start();
    Await.until(
        "the probe's /metrics",
        Duration.ofSeconds(60),
        () -> {
          assertThat(probe.isAlive()).as("the probe running: " + probeLog()).isTrue();
          return scrape().contains("mesh_injector_repairs_total");
        },
        RepairIT::probeLog);
  }

  static void stopProbe() {
    if (probe != null && probe.isAlive()) {
      probe.destroy();
      try {
        if (!probe.waitFor(20, TimeUnit.SECONDS)) {
          probe.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    probe = null;
  }

  static String probeLog() {
    try {
      return probeLog == null ? "" : KubePlane.tail(Files.readString(probeLog), 40);
    } catch (IOException e) {
      return e.toString();
    }
  }

  static String scrape() {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  static double metric(String outcome) {
    String series = "mesh_injector_repairs_total{flavour=\"linkerd\",outcome=\"" + outcome + "\"}";
    for (String line : scrape().split("\n")) {
      if (line.startsWith(series)) {
        return Double.parseDouble(line.substring(series.length()).trim());
      }
    }
    throw new AssertionError("no " + series + " in the probe's metrics");
  }

  static KubernetesClient client(Path kubeconfig) throws IOException {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
        .build();
  }

  // ---- pods and events ----

  static Container container(Pod pod, String name) {
    return Stream.concat(
            pod.getSpec().getInitContainers().stream(), pod.getSpec().getContainers().stream())
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElse(null);
  }

  static Optional<ContainerStatus> status(Pod pod, String name) {
    List<ContainerStatus> all = new ArrayList<>();
    if (pod.getStatus().getInitContainerStatuses() != null) {
      all.addAll(pod.getStatus().getInitContainerStatuses());
    }
    return all.stream().filter(c -> c.getName().equals(name)).findFirst();
  }

  static Integer terminatedExit(ContainerStatus s) {
    for (var state :
        new io.fabric8.kubernetes.api.model.ContainerState[] {s.getState(), s.getLastState()}) {
      if (state != null && state.getTerminated() != null) {
        return state.getTerminated().getExitCode();
      }
    }
    return null;
  }

  static List<Pod> podsOf(String app) {
    return admin.pods().inNamespace(SHOP).withLabel("app", app).list().getItems();
  }

  /** The pod of {@code app} (not {@code skipUid}) whose validator has exited 95. */
  static Pod awaitBroken(String app) {
    return awaitBroken(app, null);
  }

  static Pod awaitBroken(String app, String uid) {
    Pod[] found = new Pod[1];
    Await.until(
        "a pod of " + app + " whose validator exited " + StandInImage.VALIDATOR_EXIT_CODE,
        Duration.ofSeconds(90),
        () -> {
          for (Pod p : podsOf(app)) {
            if (uid != null && !uid.equals(p.getMetadata().getUid())) {
              continue;
            }
            Integer exit =
                status(p, "linkerd-network-validator").map(RepairIT::terminatedExit).orElse(null);
            if (p.getMetadata().getDeletionTimestamp() == null
                && Integer.valueOf(StandInImage.VALIDATOR_EXIT_CODE).equals(exit)) {
              found[0] = p;
              return true;
            }
          }
          return false;
        },
        () ->
            podsOf(app).stream().map(p -> p.getMetadata().getName() + " " + p.getStatus()).toList()
                + "");
    return found[0];
  }

  static Pod awaitReady(String app) {
    Pod[] found = new Pod[1];
    Await.until(
        "a Ready pod of " + app,
        Duration.ofSeconds(90),
        () -> {
          for (Pod p : podsOf(app)) {
            if (p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                    .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"))) {
              found[0] = p;
              return true;
            }
          }
          return false;
        },
        () -> podsOf(app).stream().map(p -> p.getStatus().toString()).toList() + "");
    return found[0];
  }

  static void awaitGone(Pod pod) {
    Await.until(
        pod.getMetadata().getName() + " deleted",
        Duration.ofSeconds(60),
        () -> {
          Pod now = admin.pods().inNamespace(SHOP).withName(pod.getMetadata().getName()).get();
          return now == null
              || !now.getMetadata().getUid().equals(pod.getMetadata().getUid())
              || now.getMetadata().getDeletionTimestamp() != null;
        });
  }

  /** A newer pod of the same app, another UID, admitted since. */
  static Pod awaitReplacement(String app, Pod old) {
    Pod[] found = new Pod[1];
    Await.until(
        "a replacement for " + old.getMetadata().getName(),
        Duration.ofSeconds(60),
        () -> {
          for (Pod p : podsOf(app)) {
            if (!p.getMetadata().getUid().equals(old.getMetadata().getUid())
                && p.getMetadata().getDeletionTimestamp() == null) {
              found[0] = p;
              return true;
            }
          }
          return false;
        });
    return found[0];
  }

  static List<Event> events(Pod pod) {
    return admin.v1().events().inNamespace(SHOP).list().getItems().stream()
        .filter(e -> pod.getMetadata().getUid().equals(e.getInvolvedObject().getUid()))
        .filter(e -> "mesh-injector-repair".equals(e.getReportingComponent()))
        .toList();
  }

  /** The repair's Events with {@code reason} on pods whose name starts with {@code prefix}. */
  static List<Event> repairEvents(String prefix, String reason) {
    return admin.v1().events().inNamespace(SHOP).list().getItems().stream()
        .filter(e -> "mesh-injector-repair".equals(e.getReportingComponent()))
        .filter(e -> reason.equals(e.getReason()))
        .filter(e -> e.getInvolvedObject().getName().startsWith(prefix))
        .toList();
  }

  static Event awaitEvent(Pod pod, String reason) {
    Event[] found = new Event[1];
    Await.until(
        "an Event " + reason + " on " + pod.getMetadata().getName(),
        Duration.ofSeconds(60),
        () ->
            (found[0] =
                    events(pod).stream()
                        .filter(e -> reason.equals(e.getReason()))
                        .findFirst()
                        .orElse(null))
                != null,
        () ->
            events(pod).stream().map(e -> e.getReason() + ": " + e.getMessage()).toList()
                + "\nprobe:\n"
                + probeLog());
    return found[0];
  }
}
