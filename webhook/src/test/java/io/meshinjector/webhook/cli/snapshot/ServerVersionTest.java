package io.meshinjector.webhook.cli.snapshot;

import static io.meshinjector.webhook.support.ClusterFixtures.RHEL;
import static io.meshinjector.webhook.support.ClusterFixtures.enabledNamespace;
import static io.meshinjector.webhook.support.ClusterFixtures.node;
import static io.meshinjector.webhook.support.ClusterFixtures.podOn;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.VersionInfo;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The API server's version limits native sidecars, whatever the nodes and the operator say. */
class ServerVersionTest {

  private static VersionInfo version(String major, String minor) {
    return new VersionInfo.Builder().withMajor(major).withMinor(minor).build();
  }

  private static String decide(MeshConfig config) {
    InMemoryClusterView view =
        InMemoryClusterView.of(
            config.engine().capabilities(),
            List.of(enabledNamespace("shop"), node("rhel-1", RHEL, "v1.31.4")));
    Decision d =
        new RuleEngine(config.engine(), Clock.systemUTC())
            .decide("shop/Pod/web", podOn("shop", "rhel-1"), view);
    return d.summary();
  }

  @Test
  void readsTheVersionsApiServersReport() {
    assertThat(ServerVersion.parse(version("1", "28")))
        .hasValueSatisfying(v -> assertThat(v).containsExactly(1, 28));
    // GKE and EKS append a plus
    assertThat(ServerVersion.parse(version("1", "29+")))
        .hasValueSatisfying(v -> assertThat(v).containsExactly(1, 29));
    assertThat(ServerVersion.parse(version("", "x"))).isEmpty();
    assertThat(ServerVersion.parse(null)).isEmpty();
  }

  @Test
  void anApiServerOlderThan129MeansNoNativeSidecarsEvenOnNodesThatRunThem() {
    MeshConfig config = ConfigLoader.defaults();
    assertThat(decide(config)).isEqualTo("init/nft native-sidecar await");
    assertThat(ServerVersion.apply(config, new int[] {1, 29})).isSameAs(config);

    assertThat(decide(ServerVersion.apply(config, new int[] {1, 28})))
        .isEqualTo("init/nft container await");
  }

  @Test
  void noOperatorOverrideTurnsThemBackOn() {
    MeshConfig config =
        ConfigLoader.fromYaml(
            "capabilities:\n  overrides:\n    - nodeSelector: {}\n      set: {native-sidecar: supported}\n");
    assertThat(decide(config)).isEqualTo("init/nft native-sidecar await");
    assertThat(decide(ServerVersion.apply(config, new int[] {1, 27})))
        .isEqualTo("init/nft container await");
  }
}
