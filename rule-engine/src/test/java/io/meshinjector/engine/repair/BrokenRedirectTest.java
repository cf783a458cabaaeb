package io.meshinjector.engine.repair;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which pods' statuses say the redirect step failed, row by row. */
class BrokenRedirectTest {
  static final Map<String, String> INJECTED =
      Map.of(BrokenRedirect.INJECTED_ANNOTATION, "0.1.0", "mesh-injector.io/decision", "cni");

  static ContainerStatus terminated(String name, int exit, boolean last) {
    ContainerStatusBuilder b = new ContainerStatusBuilder().withName(name).withReady(false);
    if (last) {
      b.withNewState()
          .withNewWaiting()
          .withReason("CrashLoopBackOff")
          .endWaiting()
          .endState()
          .withNewLastState()
          .withNewTerminated()
          .withExitCode(exit)
          .withReason("Error")
          .withMessage("redirect check failed")
          .endTerminated()
          .endLastState();
    } else {
      b.withNewState()
          .withNewTerminated()
          .withExitCode(exit)
          .withReason("Error")
          .endTerminated()
          .endState();
    }
    return b.build();
  }

  static PodBuilder pod(Map<String, String> annotations, ContainerStatus... init) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web-1")
        .withUid("uid-1")
        .withAnnotations(annotations)
        .addNewOwnerReference()
        .withKind("ReplicaSet")
        .withName("web-abc")
        .withUid("rs-uid")
        .withController(true)
        .withApiVersion("apps/v1")
        .endOwnerReference()
        .endMetadata()
        .withNewSpec()
        .withNodeName("node-a")
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .withInitContainerStatuses(List.of(init))
        .endStatus();
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        Arguments.of(
            "linkerd validator exit 95, last state", "linkerd-network-validator", 95, true, true),
        Arguments.of(
            "linkerd validator exit 95, current state",
            "linkerd-network-validator",
            95,
            false,
            true),
        Arguments.of("linkerd validator another code", "linkerd-network-validator", 1, true, false),
        Arguments.of("linkerd-init any non-zero", "linkerd-init", 1, true, true),
        Arguments.of("linkerd-init exit 0", "linkerd-init", 0, false, false),
        Arguments.of("istio-validation exit 126", "istio-validation", 126, true, true),
        Arguments.of(
            "istio-validation exit 95 (Linkerd's code)", "istio-validation", 95, true, false),
        Arguments.of("istio-init non-zero", "istio-init", 2, false, true),
        Arguments.of("the app's own init container", "migrate", 1, true, false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void aRedirectStepFailureIsFoundAndNothingElse(
      String row, String container, int exit, boolean last, boolean broken) {
    Optional<Breakage> found =
        BrokenRedirect.find(pod(INJECTED, terminated(container, exit, last)).build());
    assertThat(found.isPresent()).as(row).isEqualTo(broken);
    found.ifPresent(
        b -> {
          assertThat(b.container()).isEqualTo(container);
          assertThat(b.exitCode()).isEqualTo(exit);
          assertThat(b.flavour()).isEqualTo(Flavour.ofContainer(container).orElseThrow());
          assertThat(b.node()).isEqualTo("node-a");
          assertThat(b.owner()).isEqualTo(new Breakage.Owner("ReplicaSet", "web-abc", "rs-uid"));
          assertThat(b.what()).startsWith(container + " exited " + exit);
        });
  }

  @Test
  void aPodThisInjectorDidNotInjectIsNotOurs() {
    assertThat(
            BrokenRedirect.find(
                pod(
                        Map.of("linkerd.io/proxy-version", "x"),
                        terminated("linkerd-network-validator", 95, true))
                    .build()))
        .isEmpty();
  }

  @Test
  void aReadyPodIsNeverTouched() {
    Pod ready =
        pod(INJECTED, terminated("linkerd-network-validator", 95, true))
            .editStatus()
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .endStatus()
            .build();
    assertThat(BrokenRedirect.find(ready)).isEmpty();
  }

  @Test
  void aTerminatingPodIsLeftToFinish() {
    Pod terminating =
        pod(INJECTED, terminated("linkerd-network-validator", 95, true))
            .editMetadata()
            .withDeletionTimestamp("2026-11-27T10:00:00Z")
            .endMetadata()
            .build();
    assertThat(BrokenRedirect.find(terminating)).isEmpty();
  }

  @Test
  void aBarePodHasNoOwnerAndANonControllerOwnerDoesNotCount() {
    Pod bare =
        pod(INJECTED, terminated("linkerd-network-validator", 95, true))
            .editMetadata()
            .withOwnerReferences()
            .addNewOwnerReference()
            .withKind("ConfigMap")
            .withName("x")
            .withUid("cm")
            .withController(false)
            .endOwnerReference()
            .endMetadata()
            .build();
    assertThat(BrokenRedirect.find(bare)).get().extracting(Breakage::owner).isNull();
  }
}
