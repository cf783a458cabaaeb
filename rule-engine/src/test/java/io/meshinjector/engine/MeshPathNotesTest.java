package io.meshinjector.engine;

import static io.meshinjector.engine.testing.K8s.CENTOS7;
import static io.meshinjector.engine.testing.K8s.RHEL8;
import static io.meshinjector.engine.testing.K8s.enabled;
import static io.meshinjector.engine.testing.K8s.node;
import static io.meshinjector.engine.testing.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.testing.Scenario;
import org.junit.jupiter.api.Test;

/**
 * The per-node choice in the mesh's terms: the flavour's note for the chosen path, in the trace.
 */
class MeshPathNotesTest {
  private static String meshNote(Decision d) {
    return d.trace().stream()
        .filter(t -> t.rule().equals("mesh"))
        .map(TraceStep::detail)
        .findFirst()
        .orElse(null);
  }

  @Test
  void istioSaysWhatEachNodesVerdictMeansForIstioIptables() {
    Decision rhel =
        Scenario.of("shop/Pod/web")
            .cluster(enabled("shop"), node("rhel-1", RHEL8, "v1.31.0"))
            .pod(pod("shop"))
            .config("mesh: istio\n")
            .decide();
    assertThat(rhel.summary()).startsWith("init/nft");
    assertThat(meshNote(rhel))
        .contains("istio-iptables")
        .contains("iptables-nft")
        .contains("--native-nftables");

    Decision centos =
        Scenario.of("shop/Pod/web")
            .cluster(enabled("shop"), node("centos-1", CENTOS7, "v1.31.0"))
            .pod(pod("shop"))
            .config("mesh: istio\n")
            .decide();
    assertThat(centos.summary()).startsWith("init/legacy");
    assertThat(meshNote(centos)).contains("iptables-legacy").contains("nothing is pinned");

    Decision cni =
        Scenario.of("shop/Pod/web")
            .cluster(enabled("shop"), node("rhel-1", RHEL8, "v1.31.0"))
            .cniReady("rhel-1")
            .pod(pod("shop"))
            .config("mesh: istio\n")
            .decide();
    assertThat(cni.summary()).startsWith("cni");
    assertThat(meshNote(cni)).contains("istio-validation");
  }

  @Test
  void linkerdAddsNoNote() {
    Decision d =
        Scenario.of("shop/Pod/web")
            .cluster(enabled("shop"), node("rhel-1", RHEL8, "v1.31.0"))
            .pod(pod("shop"))
            .decide();
    assertThat(d.inject()).isTrue();
    assertThat(meshNote(d)).isNull();
  }
}
