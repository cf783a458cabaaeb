package io.meshinjector.engine.decision;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void injectedDecisionHasTheArchitecturesFieldsInOrder() throws Exception {
    Decision d =
        new Decision(
            "shop/Deployment/web",
            new Outcome.Inject(
                new Plan(
                    PathOption.INIT_NFT,
                    ProxyPlacement.NATIVE_SIDECAR,
                    true,
                    false,
                    new NodeConstraint(
                        List.of(
                            NodeRequirement.in(
                                "capability.mesh-injector.io/iptables-nft",
                                List.of("available", "unknown")))))),
            List.of("rhel-1", "rhel-2"),
            2,
            List.of("class 0"),
            List.of("w"),
            List.of(new TraceStep("choice", "init/nft chosen")),
            null,
            ConfigOverrides.NONE);
    String json = JSON.writeValueAsString(d.toJsonMap());
    assertThat(json)
        .isEqualTo(
            "{\"workload\":\"shop/Deployment/web\",\"inject\":true,\"rejected\":false,\"reason\":null,"
                + "\"redirect\":\"init\",\"iptablesMode\":\"nft\",\"proxy\":\"native-sidecar\","
                + "\"proxyAwait\":true,\"ipv6\":false,\"candidateNodes\":[\"rhel-1\",\"rhel-2\"],\"candidateCount\":2,"
                + "\"nodeConstraint\":{\"matchExpressions\":[{\"key\":\"capability.mesh-injector.io/iptables-nft\","
                + "\"operator\":\"In\",\"values\":[\"available\",\"unknown\"]}]},"
                + "\"warnings\":[\"w\"],\"trace\":[\"choice: init/nft chosen\"],\"overrides\":[]}");
    assertThat(d.summary()).isEqualTo("init/nft native-sidecar await constrained");
  }

  @Test
  void refusalHasReasonAndNullPlanFields() throws Exception {
    Decision d =
        new Decision(
            "shop/Pod/p",
            new Outcome.Refuse(RefusalReason.MIXED_NODES, "no path"),
            List.of(),
            0,
            List.of(),
            List.of(),
            List.of(),
            null,
            ConfigOverrides.NONE);
    var node = JSON.readTree(JSON.writeValueAsString(d.toJsonMap()));
    assertThat(node.get("inject").asBoolean()).isFalse();
    assertThat(node.get("rejected").asBoolean()).isTrue();
    assertThat(node.get("reason").asText()).isEqualTo("no path");
    assertThat(node.get("redirect").isNull()).isTrue();
    assertThat(node.get("iptablesMode").isNull()).isTrue();
    assertThat(node.get("proxy").isNull()).isTrue();
    assertThat(node.get("nodeConstraint").isNull()).isTrue();
    assertThat(d.outcomeCode()).isEqualTo("mixed-nodes");
  }

  @Test
  void cniPlanHasNoMode() {
    Plan p = new Plan(PathOption.CNI, ProxyPlacement.CONTAINER, false, false, null);
    Decision d =
        new Decision(
            "a/Pod/b",
            new Outcome.Inject(p),
            List.of(),
            0,
            List.of(),
            List.of(),
            List.of(),
            null,
            ConfigOverrides.NONE);
    assertThat(d.toJsonMap().get("iptablesMode")).isNull();
    assertThat(d.summary()).isEqualTo("cni container");
  }
}
