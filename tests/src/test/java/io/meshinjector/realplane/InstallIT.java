package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.Await;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.SharedPlane;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The chart on an ordinary, empty v1.32 cluster: no mesh CNI, no mesh namespace. It installs, and a
 * replica on the chart's own ServiceAccount is ready within 10 s, whatever the optional sources
 * (the CNI pods, the NodeCapability CRD) are doing; they join when they appear.
 */
@ResourceLock(SharedPlane.PLANE_LANE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InstallIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String CNI_SOURCE = "mesh_injector_cluster_source_synced{source=\"cni-pods\"}";
  static final String CRD_SOURCE =
      "mesh_injector_cluster_source_synced{source=\"nodecapabilities\"}";
  static final String CRD = "nodecapabilities.mesh-injector.io";

  static Release release;

  @BeforeAll
  static void install() throws Exception {
    KubePlane plane = PLANE.plane();
    FakeNodes.create(
        plane.admin(), "node-a", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
    release = Release.install(plane, "mi", NS, Map.of());
  }

  Serve replica(String id) throws Exception {
    return release.replica(id, PLANE.dir(id), KubePlane.freePort());
  }

  /** Log lines are written in batches, a moment after the event: wait for one. */
  static void awaitLog(Serve serve, String text) {
    Await.until(
        "the log line " + text,
        Duration.ofSeconds(10),
        () -> serve.log().contains(text),
        () -> KubePlane.tail(serve.log(), 10));
  }

  @Test
  @Order(1)
  void withoutTheMeshCniTheChartInstallsAndAReplicaIsReadyWithinTenSeconds() throws Exception {
    KubernetesClient admin = PLANE.plane().admin();
    assertThat(admin.namespaces().withName("linkerd-cni").get()).isNull();
    assertThat(admin.rbac().roles().inAnyNamespace().list().getItems())
        .extracting(r -> r.getMetadata().getName())
        .doesNotContain(release.fullname() + "-cni-pods");

    try (Serve serve = replica("no-cni").start()) {
      Duration ready = serve.awaitReady(Duration.ofSeconds(10));
      System.out.println(
          "InstallIT: ready " + ready.toMillis() + " ms after start, without the CNI");
      assertThat(serve.metric(CNI_SOURCE)).isEqualTo(0.0);
      // optional sources go on after readiness: the CRD's list and the CNI pods' refusal follow it
      Await.until(
          "NodeCapabilities in the view",
          Duration.ofSeconds(10),
          () -> serve.metric(CRD_SOURCE) == 1.0);
      awaitLog(serve, "cannot read the mesh CNI pods in namespace linkerd-cni");
      awaitLog(serve, "HTTP 403");
      awaitLog(serve, "ready without cni-pods (every node's cni is unknown for now)");
      // one line per failure: fabric8's stack traces are not logged
      assertThat(serve.log()).doesNotContain("\tat io.fabric8").doesNotContain(" | \tat ");

      // the mesh CNI arrives, then the upgrade that creates the Role: the pods join, no restart
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName("linkerd-cni")
                  .endMetadata()
                  .build())
          .create();
      release.upgrade(Map.of());
      Role role =
          admin
              .rbac()
              .roles()
              .inNamespace("linkerd-cni")
              .withName(release.fullname() + "-cni-pods")
              .get();
      assertThat(role).as("the Role once the namespace exists").isNotNull();
      Await.until(
          "the CNI pods joining the view",
          Duration.ofSeconds(70),
          () -> serve.metric(CNI_SOURCE) == 1.0,
          () -> KubePlane.tail(serve.log(), 20));
      // the gauge reads the informer at once; the log line follows on the sampling tick
      awaitLog(
          serve,
          "the mesh CNI pods in namespace linkerd-cni (cni: ready on their nodes) joined after");
    }
  }

  @Test
  @Order(2)
  void withoutTheCrdAReplicaIsReadyAndTheProbesVerdictsJoinWhenItIsEstablished() throws Exception {
    KubernetesClient admin = PLANE.plane().admin();
    var crd = admin.apiextensions().v1().customResourceDefinitions().withName(CRD).get();
    assertThat(crd).isNotNull();
    admin.apiextensions().v1().customResourceDefinitions().withName(CRD).delete();
    Await.until(
        "the CRD gone",
        Duration.ofSeconds(30),
        () -> admin.apiextensions().v1().customResourceDefinitions().withName(CRD).get() == null);

    try (Serve serve = replica("no-crd").start()) {
      serve.awaitReady(Duration.ofSeconds(10));
      assertThat(serve.metric(CRD_SOURCE)).isEqualTo(0.0);
      awaitLog(serve, "cannot read NodeCapabilities");
      awaitLog(serve, "HTTP 404");

      // helm upgrade puts the missing CRD back
      release.upgrade(Map.of());
      Await.until(
          "NodeCapabilities joining the view",
          Duration.ofSeconds(70),
          () -> serve.metric(CRD_SOURCE) == 1.0,
          () -> KubePlane.tail(serve.log(), 20));
      assertThat(serve.ready()).isTrue();
    }
  }
}
