package io.meshinjector.webhook.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.ProbeSource;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.probe.ProbeFacts;
import io.meshinjector.webhook.support.ClusterFixtures;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What another release's probe wrote into a node's NodeCapability status, and this version does not
 * know, survives this version's write: the probes of two releases of different versions can write
 * one node (a handover of the probe from one to the other), and an older one can write after a
 * newer one.
 */
@EnableKubernetesMockClient(crud = true)
class NodeCapabilityUnknownFieldsTest {
  static final Instant AT = Instant.parse("2026-11-20T10:05:00Z");

  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void registerCrd() {
    server.expectCustomResource(ClusterFixtures.nodeCapabilityCrd(true));
  }

  /** The replace path, which has no field managers to go by: fabric8's CRUD mock takes it. */
  @Test
  void aStatusFieldThisVersionDoesNotKnowSurvivesAWrite() {
    // as a newer release's probe left it: a key, a source, facts and a status field this version
    // does not know, beside known ones that this version's write replaces
    Map<String, Object> newer = new LinkedHashMap<>();
    newer.put("observedAt", "2026-11-20T10:00:00Z");
    newer.put("capabilities", Map.of("cni", "ready", "some-future-key", "available"));
    newer.put("sources", Map.of("cni", "files", "some-future-key", "active"));
    newer.put(
        "facts",
        Map.of(
            "os",
            "rhel 8.9",
            ProbeFacts.MISSING_MODULES,
            "ip_tables",
            "reason.cni",
            "linkerd-cni is chained",
            "reason.some-future-key",
            "tried it",
            "futureFact",
            "42"));
    newer.put("futureField", Map.of("attempts", "3"));
    GenericKubernetesResource stored = NodeCapabilityWriter.resource("rhel-1", null);
    client.genericKubernetesResources(NodeCapabilityWriter.CONTEXT).resource(stored).create();
    stored =
        client.genericKubernetesResources(NodeCapabilityWriter.CONTEXT).withName("rhel-1").get();
    stored.setAdditionalProperty("status", newer);
    client
        .genericKubernetesResources(NodeCapabilityWriter.CONTEXT)
        .resource(stored)
        .subresource("status")
        .update();

    NodeCapabilityWriter.Method how =
        new NodeCapabilityWriter(
                client, NodeCapabilityWriter.fieldManager(NodeCapabilityWriter.DEFAULT_REVISION))
            .write(
                "rhel-1",
                NodeCapabilityWriterTest.report(
                    AT, Map.of("os", "rhel 8.10", "reason.cni", "not chained"), Verdict.ABSENT));

    assertThat(how).isEqualTo(NodeCapabilityWriter.Method.REPLACE);
    Map<String, Object> status =
        map(
            client
                .genericKubernetesResources(NodeCapabilityWriter.CONTEXT)
                .withName("rhel-1")
                .get()
                .getAdditionalProperties()
                .get("status"));
    assertThat(status.get("observedAt")).isEqualTo(AT.toString());
    assertThat(status.get("futureField")).isEqualTo(Map.of("attempts", "3"));
    assertThat(map(status.get("capabilities")))
        .containsEntry("some-future-key", "available")
        .containsEntry("cni", "absent")
        .containsEntry("iptables-nft", "available");
    // this write has no sources: the known one goes, the unknown one stays
    assertThat(map(status.get("sources")))
        .containsExactlyEntriesOf(Map.of("some-future-key", "active"));
    assertThat(map(status.get("facts")))
        .containsEntry("os", "rhel 8.10")
        .containsEntry("reason.cni", "not chained")
        .containsEntry("reason.some-future-key", "tried it")
        .containsEntry("futureFact", "42")
        // a fact this version writes, but not this time: gone, as before
        .doesNotContainKey(ProbeFacts.MISSING_MODULES);
  }

  @Test
  void nothingIsKeptFromAStatusThisVersionWroteItself() {
    Map<String, Object> own =
        NodeCapabilityWriterTest.report(AT, Map.of("os", "rhel 8.10"), Verdict.READY)
            .status()
            .toMap();
    Map<String, Object> before =
        new NodeCapabilityStatus(
                Instant.parse("2026-11-20T10:00:00Z"),
                Map.of(CapabilityKey.CNI, Verdict.ABSENT),
                Map.of("reason.cni", "not chained", "active.iptables-nft", "ok"),
                Map.of(CapabilityKey.CNI, ProbeSource.FILES))
            .toMap();

    assertThat(NodeCapabilityWriter.keepingUnknown(before, own)).isEqualTo(own);
    assertThat(NodeCapabilityWriter.keepingUnknown(null, own)).isEqualTo(own);
    assertThat(NodeCapabilityWriter.keepingUnknown("not a map", own)).isEqualTo(own);
  }

  /** Every fact name ProbeFacts defines is one the replace path replaces rather than keeps. */
  @Test
  void theKnownFactsAreProbeFactsNames() throws IllegalAccessException {
    List<String> names = new ArrayList<>();
    for (Field f : ProbeFacts.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers())
          && f.getType() == String.class
          && !f.getName().endsWith("_PREFIX")) {
        names.add((String) f.get(null));
      }
    }
    assertThat(NodeCapabilityWriter.KNOWN_FACTS).containsExactlyInAnyOrderElementsOf(names);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }
}
