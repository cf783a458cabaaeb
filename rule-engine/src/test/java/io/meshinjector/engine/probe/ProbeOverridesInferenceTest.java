package io.meshinjector.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.testing.K8s;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The probe's NodeCapability, as it would be written for a measured host, beats what the Node's
 * osImage says, and the decision's trace names the probe as the source.
 */
class ProbeOverridesInferenceTest {
  private static final Instant NOW = Instant.parse("2026-11-20T10:00:00Z");

  /** What the probe's edge reads on a RHEL 8.10 node: nft only, as text. */
  static NodeMeasurements rhel810() {
    String kernel = "4.18.0-553.el8_10.x86_64";
    KernelModules modules =
        new KernelModules(
            KernelModules.parseProcModules(
                "nft_chain_nat 16384 1 - Live 0x0\nnf_tables 16384 1 - Live 0x0\n"),
            null,
            KernelModules.parseModuleList("kernel/net/unix.ko\n"),
            null,
            KernelModules.parseModuleList(
                "kernel/net/ipv4/netfilter/ip_tables.ko.xz:\n"
                    + "kernel/net/ipv4/netfilter/iptable_nat.ko.xz: x\n"
                    + "kernel/net/netfilter/nf_tables.ko.xz:\n"),
            null);
    return new NodeMeasurements(
        "ID=\"rhel\"\nVERSION_ID=\"8.10\"\n",
        null,
        kernel,
        null,
        modules,
        null,
        new HostIptables(
            "nft",
            "/usr/sbin/iptables -> xtables-nft-multi",
            Set.of("iptables", "iptables-save"),
            null),
        null,
        new CniMeasurement.RuntimeUnreadable("not mounted in this test"),
        "enforcing",
        Map.of());
  }

  @Test
  void measuredNftOnlyHostBeatsACentos7OsImage() {
    ProbeReport report = ProbeVerdicts.report(rhel810(), ProbeOptions.defaults(), NOW);
    GenericKubernetesResource capability = new GenericKubernetesResource();
    capability.setApiVersion("mesh-injector.io/v1alpha1");
    capability.setKind("NodeCapability");
    capability.setMetadata(new ObjectMetaBuilder().withName("mislabelled").build());
    capability.setAdditionalProperty("status", report.toResource("mislabelled").get("status"));

    EngineConfig config = ConfigLoader.defaults().engine();
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
