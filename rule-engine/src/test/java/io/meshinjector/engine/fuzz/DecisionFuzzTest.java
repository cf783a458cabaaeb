package io.meshinjector.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.testing.K8s;
import io.meshinjector.fuzz.Fuzz;
import io.meshinjector.fuzz.JsonMutations;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The decision over mutated pods: any pod the API server's JSON could carry gets a Decision (with
 * its trace), never an exception.
 */
class DecisionFuzzTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");

  @Test
  void decidesEveryPod() throws Exception {
    EngineConfig config = ConfigLoader.defaults().engine();
    InMemoryClusterView view =
        InMemoryClusterView.of(
            config.capabilities(),
            List.of(
                K8s.enabled("shop"),
                K8s.node("rhel-1", K8s.RHEL8, "v1.31.0", "pool", "rhel"),
                K8s.taint(
                    K8s.node("centos-1", K8s.CENTOS7, "v1.28.0", "pool", "legacy"),
                    "legacy",
                    "true",
                    "NoSchedule"),
                K8s.node("eks-1", K8s.AL2023, "v1.30.2"),
                K8s.probe("eks-1", NOW.minusSeconds(60), Map.of("cni", "ready"), Map.of())));
    RuleEngine engine = new RuleEngine(config, Clock.fixed(NOW, ZoneOffset.UTC));
    List<byte[]> seeds =
        List.of(
            JSON.writeValueAsBytes(K8s.pod("shop")),
            JSON.writeValueAsBytes(
                K8s.affinity(
                        K8s.pod("shop", Map.of("mesh-injector.io/path", "cni")),
                        List.of(K8s.req("pool", "In", "rhel", "legacy")),
                        List.of(K8s.req("metadata.name", "NotIn", "eks-1")))
                    .editSpec()
                    .addToTolerations(K8s.tolerate("legacy", "Exists", null, "NoSchedule"))
                    .addToNodeSelector("kubernetes.io/os", "linux")
                    .endSpec()
                    .build()),
            JSON.writeValueAsBytes(
                K8s.pod("shop", Map.of("mesh-injector.io/inject", "disabled")).build()));
    Fuzz.target("decision", seeds)
        .limits(new Fuzz.Limits(10_000, 512L * 1024 * 1024))
        .structural(new JsonMutations(JSON, JSON))
        .run(
            in -> {
              Pod pod;
              try {
                pod = JSON.readValue(in, Pod.class);
              } catch (Exception e) {
                return; // the codec's to refuse: DecodingFuzzTest
              }
              if (pod == null) {
                return;
              }
              Decision d = engine.decide("shop/Pod/fuzz", pod, view);
              assertThat(d.summary()).isNotBlank();
              assertThat(d.trace()).isNotNull();
            });
  }
}
