package io.meshinjector.webhook.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.StatusReading;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.probe.ProbeReport;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Against fabric8's CRUD mock, which answers apply-patch with 415: the writer falls back to create
 * + status replace, and the stored object is what the registry will read.
 */
@EnableKubernetesMockClient(crud = true)
class NodeCapabilityWriterTest {
  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void registerCrd() {
    server.expectCustomResource(
        new CustomResourceDefinitionContext.Builder()
            .withGroup("mesh-injector.io")
            .withVersion("v1alpha1")
            .withPlural("nodecapabilities")
            .withKind("NodeCapability")
            .withScope("Cluster")
            .withStatusSubresource(true)
            .build());
  }

  static ProbeReport report(Instant at, Map<String, String> facts, Verdict cni) {
    return new ProbeReport(
        new NodeCapabilityStatus(
            at,
            Map.of(
                CapabilityKey.IPTABLES_LEGACY, Verdict.UNAVAILABLE,
                CapabilityKey.IPTABLES_NFT, Verdict.AVAILABLE,
                CapabilityKey.CNI, cni),
            facts,
            Map.of()),
        List.of());
  }

  private GenericKubernetesResource stored(String name) {
    return client.genericKubernetesResources(NodeCapabilityWriter.CONTEXT).withName(name).get();
  }

  @Test
  void createsTheObjectAndWritesItsStatus() {
    NodeCapabilityWriter writer =
        new NodeCapabilityWriter(
            client, NodeCapabilityWriter.fieldManager(NodeCapabilityWriter.DEFAULT_REVISION));
    Instant at = Instant.parse("2026-11-20T10:00:00Z");

    NodeCapabilityWriter.Method how =
        writer.write(
            "rhel-1",
            report(
                at,
                Map.of("os", "rhel 8.10", "missingModules", "ip_tables,iptable_nat"),
                Verdict.ABSENT));

    assertThat(how).isEqualTo(NodeCapabilityWriter.Method.REPLACE);
    GenericKubernetesResource r = stored("rhel-1");
    assertThat(r.getApiVersion()).isEqualTo("mesh-injector.io/v1alpha1");
    assertThat(r.getKind()).isEqualTo("NodeCapability");
    assertThat(r.getMetadata().getNamespace()).isNull();
    NodeCapabilityStatus back = readBack(r);
    assertThat(back.observedAt()).isEqualTo(at);
    assertThat(back.capabilities())
        .containsEntry(CapabilityKey.IPTABLES_LEGACY, Verdict.UNAVAILABLE)
        .containsEntry(CapabilityKey.CNI, Verdict.ABSENT);
    assertThat(back.facts()).containsEntry("missingModules", "ip_tables,iptable_nat");
  }

  @Test
  void aLaterRunReplacesTheStatusAndDropsFactsNoLongerReported() {
    NodeCapabilityWriter writer =
        new NodeCapabilityWriter(
            client, NodeCapabilityWriter.fieldManager(NodeCapabilityWriter.DEFAULT_REVISION));
    writer.write(
        "rhel-1",
        report(
            Instant.parse("2026-11-20T10:00:00Z"),
            Map.of("os", "rhel 8.10", "reason.cni", "linkerd-cni is not chained"),
            Verdict.ABSENT));

    writer.write(
        "rhel-1",
        report(Instant.parse("2026-11-20T10:05:00Z"), Map.of("os", "rhel 8.10"), Verdict.READY));

    NodeCapabilityStatus back = readBack(stored("rhel-1"));
    assertThat(back.observedAt()).isEqualTo(Instant.parse("2026-11-20T10:05:00Z"));
    assertThat(back.capabilities()).containsEntry(CapabilityKey.CNI, Verdict.READY);
    assertThat(back.facts()).isEqualTo(Map.of("os", "rhel 8.10"));
    assertThat(client.genericKubernetesResources(NodeCapabilityWriter.CONTEXT).list().getItems())
        .hasSize(1);
  }

  /** The status as the webhook's view reads it (InMemoryClusterView), with nothing dropped. */
  private static NodeCapabilityStatus readBack(GenericKubernetesResource r) {
    StatusReading reading = StatusReading.of(r.getAdditionalProperties().get("status"));
    assertThat(reading.problems()).isEmpty();
    return reading.status();
  }
}
