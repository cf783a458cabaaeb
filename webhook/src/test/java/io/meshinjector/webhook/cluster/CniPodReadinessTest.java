package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class CniPodReadinessTest {
  static PodBuilder pod(String node, String phase, String ready) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName("linkerd-cni-x")
            .withNamespace("linkerd-cni")
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .endSpec()
            .withNewStatus()
            .withPhase(phase)
            .endStatus();
    if (ready != null) {
      b.editStatus()
          .addNewCondition()
          .withType("PodScheduled")
          .withStatus("True")
          .endCondition()
          .addNewCondition()
          .withType("Ready")
          .withStatus(ready)
          .endCondition()
          .endStatus();
    }
    return b;
  }

  @Test
  void aRunningReadyPodOnANodeMakesThatNodeReady() {
    assertThat(CniPodReadiness.readyNode(pod("rhel-1", "Running", "True").build()))
        .contains("rhel-1");
  }

  @Test
  void anythingLessMakesNoNodeReady() {
    assertThat(CniPodReadiness.readyNode(pod("rhel-1", "Running", "False").build())).isEmpty();
    assertThat(CniPodReadiness.readyNode(pod("rhel-1", "Running", null).build())).isEmpty();
    assertThat(CniPodReadiness.readyNode(pod("rhel-1", "Pending", "True").build())).isEmpty();
    assertThat(CniPodReadiness.readyNode(pod(null, "Running", "True").build())).isEmpty();
    assertThat(CniPodReadiness.readyNode(pod("", "Running", "True").build())).isEmpty();
    Pod deleting =
        pod("rhel-1", "Running", "True")
            .editMetadata()
            .withDeletionTimestamp("2026-11-24T02:00:00Z")
            .endMetadata()
            .build();
    assertThat(CniPodReadiness.readyNode(deleting)).isEmpty();
    assertThat(CniPodReadiness.readyNode(new Pod())).isEmpty();
    assertThat(CniPodReadiness.readyNode(null)).isEmpty();
  }
}
