package io.meshinjector.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.testing.K8s;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe's NodeCapability, as it would be written for a measured host, beats what the Node's
 * osImage says, and the decision's trace names the probe as the source.
 */
class ProbeOverridesInferenceTest {
  private static final Instant NOW = Instant.parse("2026-11-20T10:00:00Z");

  @TempDir Path root;

  @Test
  void measuredNftOnlyHostBeatsACentos7OsImage() {
    ProbeReport report = new HostProbe(HostFixture.rhel810(root).root).probe(NOW);
    GenericKubernetesResource capability = new GenericKubernetesResource();
    capability.setApiVersion("mesh-injector.io/v1alpha1");
    capability.setKind("NodeCapability");
    capability.setMetadata(new ObjectMetaBuilder().withName("mislabelled").build());
    capability.setAdditionalProperty("status", report.toResource("mislabelled").get("status"));

    EngineConfig config = EngineConfig.defaults();
    // The Node claims CentOS 7 (inference: legacy only); the host measured nft only.
    InMemoryClusterView view =
        InMemoryClusterView.of(
            config.capabilities(),
            List.of(
                K8s.enabled("shop"), K8s.node("mislabelled", K8s.CENTOS7, "v1.31.0"), capability));
    Decision d =
        new RuleEngine(config, Clock.fixed(NOW, ZoneOffset.UTC))
            .decide("shop/Pod/web", K8s.pod("shop"), view);

    assertThat(d.summary()).isEqualTo("init/nft native-sidecar await");
    assertThat(d.nodeClasses())
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains("iptables-nft available (probe")
                    .contains("iptables-legacy unavailable (probe")
                    .contains("native-sidecar supported (inference"));
  }
}
