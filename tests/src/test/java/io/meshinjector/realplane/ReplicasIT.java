package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.LoadBalancer;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.SharedPlane;
import io.meshinjector.plane.Workloads;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Two replicas behind one address (HAProxy, checking {@code /readyz} as a Service's endpoints
 * follow readiness): the label writer's lease passes to the survivor, and a {@code helm upgrade}
 * rolled out replica by replica while pods are created at a steady 25 a second fails no creation.
 */
@ResourceLock(SharedPlane.PLANE_LANE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicasIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String LABEL = "capability.mesh-injector.io/iptables-nft";

  static Release release;
  static final List<Serve> replicas = new ArrayList<>();
  static LoadBalancer balancer;
  static int balancerPort;
  static KubernetesClient admin;

  @BeforeAll
  static void installTwoReplicas() throws Exception {
    Path haproxy = LoadBalancer.haproxy().orElse(null);
    Assumptions.assumeTrue(
        haproxy != null,
        "ReplicasIT skipped: no haproxy on the PATH (Debian's package haproxy; .ci/run installs it)");
    KubePlane plane = PLANE.plane();
    admin = plane.admin();
    FakeNodes.createRhel8(admin, Map.of("pool", "rhel"), "rhel-1", "rhel-2");
    balancerPort = KubePlane.freePort();
    release = Release.install(plane, "mi", NS, values());
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Path dir = PLANE.dir("r" + i);
      Serve serve = release.replica("r" + i, dir, KubePlane.freePort());
      // one after the other, as a Deployment's rollout brings them up on two cores
      replicas.add(serve.start());
      serve.awaitReady(Duration.ofSeconds(60));
      ports.add(serve.port());
    }
    balancer = new LoadBalancer(haproxy, PLANE.dir("lb"), balancerPort, ports);
    Workloads.optedIn(admin, "shop", Duration.ofSeconds(20));
  }

  /**
   * The replicas reached through the balancer, with a one-second readiness probe: the chart then
   * sets the drain after SIGTERM to 6 s (the probe's period times its failures, plus 5 s) instead
   * of 15 s. HAProxy checks {@code /readyz} every 250 ms here, so it leaves a draining replica well
   * within that, as the kubelet and kube-proxy would within the chart's default.
   */
  static Map<String, Object> values() {
    Map<String, Object> values = new java.util.HashMap<>(Release.urlValue(balancerPort));
    values.put("probes.readiness.periodSeconds", 1);
    values.put("probes.readiness.failureThreshold", 1);
    values.put("probes.readiness.timeoutSeconds", 1);
    return values;
  }

  @AfterAll
  static void stop() {
    replicas.forEach(Serve::close);
    if (balancer != null) {
      balancer.close();
    }
  }

  static String holder() {
    Lease lease = admin.leases().inNamespace(NS).withName(release.fullname() + "-labels").get();
    return lease == null ? "" : String.valueOf(lease.getSpec().getHolderIdentity());
  }

  @Test
  @Order(1)
  void whenTheLabelWriterStopsTheOtherReplicaTakesItsLeaseAndLabelsNewNodes() throws Exception {
    Await.until("a label writer", Duration.ofSeconds(20), () -> holder().startsWith("r"));
    String first = holder();
    Serve leader = replicas.get(first.startsWith("r0_") ? 0 : 1);
    Serve other = replicas.get(first.startsWith("r0_") ? 1 : 0);
    leader.stop();
    try {
      FakeNodes.createRhel8(admin, Map.of("pool", "rhel"), "rhel-3");
      Await.until(
          "rhel-3 labelled by the other replica",
          Duration.ofSeconds(45),
          () -> admin.nodes().withName("rhel-3").get().getMetadata().getLabels().containsKey(LABEL),
          () -> "lease holder " + holder() + "; " + KubePlane.tail(other.log(), 10));
      assertThat(holder()).startsWith(first.startsWith("r0_") ? "r1_" : "r0_");
      assertThat(admin.nodes().withName("rhel-3").get().getMetadata().getLabels().get(LABEL))
          .isEqualTo("available");
    } finally {
      leader.start().awaitReady(Duration.ofSeconds(60));
    }
  }

  /** The pod creations during the upgrade: at this rate, at most this many (4 minutes of them). */
  static final int PODS_PER_SECOND = 25;

  static final int MAX_PODS = PODS_PER_SECOND * 240;

  @Test
  @Order(2)
  void anUpgradeRolledOutReplicaByReplicaFailsNoPodCreation() throws Exception {
    AtomicBoolean creating = new AtomicBoolean(true);
    AtomicInteger created = new AtomicInteger();
    List<String> failures = new CopyOnWriteArrayList<>();
    Thread creator =
        new Thread(
            () -> {
              long start = System.nanoTime();
              long deadline = start + Duration.ofMinutes(4).toNanos();
              for (int i = 0; creating.get() && i < MAX_PODS && System.nanoTime() < deadline; i++) {
                // paced: the count depends on how long the rollout takes, never on how fast the
                // API server answers, so the bound cannot run out before the rollout ends
                long wait = start + i * 1_000_000_000L / PODS_PER_SECOND - System.nanoTime();
                if (wait > 0) {
                  java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
                try {
                  admin
                      .pods()
                      .inNamespace("shop")
                      .resource(
                          Workloads.pod(
                              "p-" + i, Map.of(), Workloads.appSpec(Map.of("pool", "rhel"))))
                      .create();
                  created.incrementAndGet();
                } catch (RuntimeException e) {
                  failures.add("p-" + i + ": " + e.getMessage());
                }
              }
            },
            "pod-creator");
    creator.start();
    try {
      Await.until("pods being created", Duration.ofSeconds(30), () -> created.get() >= 10);
      Map<String, Object> values = new java.util.HashMap<>(values());
      values.put("config.proxy.logFormat", "json");
      release.upgrade(values);
      for (Serve serve : replicas) {
        Path dir = PLANE.dir("v2-" + serve.port());
        int before = created.get();
        serve.stop();
        serve.remount(release.configFile(dir), release.tlsDir(dir.resolve("tls")));
        serve.start().awaitReady(Duration.ofSeconds(60));
        assertThat(created.get())
            .as("pods created while a replica was replaced")
            .isGreaterThan(before);
      }
      int after = created.get();
      Await.until(
          "pods created after the rollout",
          Duration.ofSeconds(30),
          () -> created.get() >= after + 10);
    } finally {
      creating.set(false);
      creator.join(30_000);
    }
    System.out.printf(
        "ReplicasIT: %d pods created during the upgrade, %d failed%n",
        created.get(), failures.size());
    assertThat(failures).isEmpty();
    Pod last = admin.pods().inNamespace("shop").withName("p-" + (created.get() - 1)).get();
    List<EnvVar> env =
        last.getSpec().getInitContainers().stream()
            .filter(c -> c.getName().equals("linkerd-proxy"))
            .findFirst()
            .or(
                () ->
                    last.getSpec().getContainers().stream()
                        .filter(c -> c.getName().equals("linkerd-proxy"))
                        .findFirst())
            .orElseThrow()
            .getEnv();
    assertThat(env)
        .filteredOn(e -> e.getName().equals("LINKERD2_PROXY_LOG_FORMAT"))
        .extracting(EnvVar::getValue)
        .containsExactly("json");
  }
}
