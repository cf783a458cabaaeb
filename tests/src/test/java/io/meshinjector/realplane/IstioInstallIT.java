package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.SharedPlane;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The Istio flavour on an empty cluster without {@code istio-system}: the run's shared plane, on
 * which no other release holds the cluster-scoped NodeCapability CRD while this class runs ({@code
 * ClusterHygiene}).
 */
@ResourceLock(SharedPlane.PLANE_LANE)
class IstioInstallIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  @Test
  void theIstioFlavourInstallsWithoutIstioSystemAndAReplicaIsReady() throws Exception {
    KubePlane plane = PLANE.plane();
    FakeNodes.create(
        plane.admin(), "node-a", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of()));
    assertThat(plane.admin().namespaces().withName("istio-system").get()).isNull();
    Release istio = Release.install(plane, "mi", "mesh-istio", Map.of("config.mesh", "istio"));
    try (Serve serve = istio.replica("istio", PLANE.dir("istio"), KubePlane.freePort()).start()) {
      serve.awaitReady(Duration.ofSeconds(30));
      assertThat(serve.log()).contains("cannot read the mesh CNI pods in namespace istio-system");
    }
  }
}
