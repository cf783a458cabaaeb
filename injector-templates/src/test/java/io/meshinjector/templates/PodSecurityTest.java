package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Injected pods against Pod Security: the CNI path adds nothing that {@code restricted} refuses;
 * the init path adds nothing {@code baseline} refuses but the init container's NET_ADMIN/NET_RAW.
 */
class PodSecurityTest {
  private static final PodInjector INJECTOR = Fixtures.injector();
  private static final Set<String> INJECTED =
      Set.of("linkerd-proxy", "linkerd-init", "linkerd-network-validator");

  static Stream<Cases.Case> cases() {
    return Cases.all().filter(c -> !c.name().equals("already-injected"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void injectedPartsMeetTheirLevel(Cases.Case c) {
    List<Pod> pods = c.pods();
    for (int i = 0; i < pods.size(); i++) {
      Pod rendered = Injected.pod(INJECTOR, pods.get(i), c.decision(c.workloads().get(i)));
      PodSpec injectedOnly = injectedParts(rendered.getSpec(), pods.get(i).getSpec());
      List<String> restricted = PodSecurity.restricted(injectedOnly, Map.of());
      List<String> baseline = PodSecurity.baseline(injectedOnly, Map.of());
      if (c.cni()) {
        assertThat(restricted).isEmpty();
      } else {
        assertThat(baseline)
            .containsExactly(
                "linkerd-init: adds capability NET_ADMIN", "linkerd-init: adds capability NET_RAW");
        assertThat(restricted)
            .allMatch(v -> v.startsWith("linkerd-init: "))
            .contains("linkerd-init: does not drop ALL capabilities");
      }
    }
  }

  @Test
  void restrictedAppStaysRestrictedOnTheCniPath() {
    for (String name : List.of("restricted-native-cni", "restricted-container-cni")) {
      Cases.Case c = Cases.all().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
      Pod original = c.pods().get(0);
      assertThat(PodSecurity.restricted(original.getSpec(), Map.of())).isEmpty();
      Pod rendered = Injected.pod(INJECTOR, original, c.decision(c.workloads().get(0)));
      assertThat(
              PodSecurity.restricted(rendered.getSpec(), rendered.getMetadata().getAnnotations()))
          .as(name)
          .isEmpty();
    }
  }

  @Test
  void restrictedAppOnTheInitPathFailsOnlyForTheInitContainersCapabilities() {
    Cases.Case cni =
        Cases.all().filter(x -> x.name().equals("restricted-native-cni")).findFirst().orElseThrow();
    Pod original = cni.pods().get(0);
    Pod rendered =
        Injected.pod(
            INJECTOR,
            original,
            Fixtures.inject(
                cni.workloads().get(0),
                io.meshinjector.engine.decision.PathOption.INIT_NFT,
                io.meshinjector.engine.decision.ProxyPlacement.NATIVE_SIDECAR,
                true));
    assertThat(PodSecurity.baseline(rendered.getSpec(), Map.of()))
        .containsExactly(
            "linkerd-init: adds capability NET_ADMIN", "linkerd-init: adds capability NET_RAW");
  }

  @Test
  void theCheckerRefusesWhatRestrictedRefuses() {
    // A checker that passes everything proves nothing: feed it the classic violations.
    Pod bad =
        Fixtures.STRICT.convertValue(
            Fixtures.loadTrees("fixtures/emojivoto-pod.yaml").get(0), Pod.class);
    PodSpec spec = bad.getSpec();
    spec.setHostNetwork(true);
    spec.getVolumes()
        .add(
            new io.fabric8.kubernetes.api.model.VolumeBuilder()
                .withName("host")
                .withNewHostPath()
                .withPath("/")
                .endHostPath()
                .build());
    Container c = spec.getContainers().get(0);
    c.setSecurityContext(
        new io.fabric8.kubernetes.api.model.SecurityContextBuilder()
            .withPrivileged(true)
            .withNewCapabilities()
            .withAdd("SYS_ADMIN")
            .endCapabilities()
            .build());
    c.setPorts(
        List.of(
            new io.fabric8.kubernetes.api.model.ContainerPortBuilder()
                .withContainerPort(80)
                .withHostPort(80)
                .build()));
    List<String> v = PodSecurity.restricted(spec, Map.of());
    assertThat(v)
        .contains(
            "host namespaces",
            "volume host: hostPath",
            "vote-bot: privileged",
            "vote-bot: adds capability SYS_ADMIN",
            "vote-bot: hostPort 80",
            "vote-bot: allowPrivilegeEscalation is not false",
            "vote-bot: runAsNonRoot is not true",
            "vote-bot: seccomp is not RuntimeDefault or Localhost",
            "vote-bot: does not drop ALL capabilities",
            "volume host: type hostPath");
  }

  /** A spec with only what injection added: its containers and volumes, none of the app's. */
  private static PodSpec injectedParts(PodSpec rendered, PodSpec original) {
    PodSpec s = new PodSpec();
    s.setInitContainers(
        rendered.getInitContainers().stream().filter(x -> INJECTED.contains(x.getName())).toList());
    s.setContainers(
        rendered.getContainers().stream().filter(x -> INJECTED.contains(x.getName())).toList());
    Set<String> before =
        original == null || original.getVolumes() == null
            ? Set.of()
            : Set.copyOf(original.getVolumes().stream().map(Volume::getName).toList());
    s.setVolumes(
        rendered.getVolumes().stream().filter(x -> !before.contains(x.getName())).toList());
    return s;
  }
}
