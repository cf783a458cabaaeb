package io.meshinjector.templates;

import static io.meshinjector.engine.decision.PathOption.CNI;
import static io.meshinjector.engine.decision.PathOption.INIT_NFT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.rules.InjectGate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code sidecar.istio.io/proxyImage} as istiod 1.28's injection template uses it: the image of
 * istio-proxy and of the redirect container, istio-init or (CNI) istio-validation, which istiod
 * gives the annotation too. IstioCompatibilityTest compares the init path with istiod's golden; no
 * golden covers the CNI path, a configured init image, or the regular-container layout, so these
 * do, each pod first through the engine's gate and the patch applied by Parsson.
 */
class IstioProxyImageTest {
  private static final String IMAGE = "registry.example:5000/mesh/proxyv2:1.28.0-patched";
  private static final String CONFIGURED = "docker.io/istio/proxyv2:1.28.0";

  static Stream<Arguments> layouts() {
    return Stream.of(
        Arguments.of(INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, "istio-init"),
        Arguments.of(INIT_NFT, ProxyPlacement.CONTAINER, "istio-init"),
        Arguments.of(CNI, ProxyPlacement.NATIVE_SIDECAR, "istio-validation"),
        Arguments.of(CNI, ProxyPlacement.CONTAINER, "istio-validation"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("layouts")
  void theAnnotationsImageIsTheProxysAndTheRedirectContainers(
      PathOption path, ProxyPlacement placement, String redirect) throws Exception {
    Map<String, String> images =
        images(inject("", path, placement, Map.of("sidecar.istio.io/proxyImage", IMAGE)));
    assertThat(images).containsEntry("istio-proxy", IMAGE).containsEntry(redirect, IMAGE);
    // the app's own image is the pod's, untouched
    assertThat(images).containsEntry("app", "fake.docker.io/app:1.0");
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("layouts")
  void withoutTheAnnotationTheConfiguredImagesApply(
      PathOption path, ProxyPlacement placement, String redirect) throws Exception {
    Map<String, String> images = images(inject("", path, placement, Map.of()));
    assertThat(images).containsEntry("istio-proxy", CONFIGURED).containsEntry(redirect, CONFIGURED);
  }

  /**
   * An operator's own init or validator image is the default the annotation replaces, as istiod's
   * values.global.proxy_init.image is: without the annotation it stays, with it the pod's image
   * goes to both containers.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("layouts")
  void aConfiguredRedirectImageIsTheDefaultTheAnnotationReplaces(
      PathOption path, ProxyPlacement placement, String redirect) throws Exception {
    String config =
        "proxyInit: {image: example.com/own/init:1}\nvalidator: {image: example.com/own/check:1}\n";
    String own =
        redirect.equals("istio-init") ? "example.com/own/init:1" : "example.com/own/check:1";
    assertThat(images(inject(config, path, placement, Map.of())))
        .containsEntry("istio-proxy", CONFIGURED)
        .containsEntry(redirect, own);
    assertThat(
            images(inject(config, path, placement, Map.of("sidecar.istio.io/proxyImage", IMAGE))))
        .containsEntry("istio-proxy", IMAGE)
        .containsEntry(redirect, IMAGE);
  }

  /** The pod as the webhook's patch, applied by Parsson, leaves it (and as rendered). */
  private static Pod inject(
      String config, PathOption path, ProxyPlacement placement, Map<String, String> annotations)
      throws Exception {
    MeshConfig mesh = ConfigLoader.fromYaml(IstioCases.CONFIG + config);
    PodInjector injector = new PodInjector(TemplateConfig.from(mesh));
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("app")
            .withNamespace(IstioCases.NAMESPACE)
            .withAnnotations(new HashMap<>(annotations))
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("fake.docker.io/app:1.0")
            .endContainer()
            .endSpec()
            .build();
    Optional<Outcome> gated =
        new InjectGate(mesh.engine().injection())
            .check(pod, IstioCases.namespace(), t -> {}, w -> {});
    assertThat(gated).as("the gate lets the pod through").isEmpty();
    Decision decision = Fixtures.inject("app", path, placement, true);
    Pod rendered = Injected.pod(injector, pod, decision);
    JsonNode applied =
        Injected.applied(pod, Fixtures.patch(injector, pod, decision).patch().toString());
    assertThat(applied)
        .isEqualTo(Fixtures.JSON.readTree(Fixtures.JSON.writeValueAsString(rendered)));
    return Fixtures.assertValidPod(applied, "proxyImage " + path + " " + placement);
  }

  private static Map<String, String> images(Pod pod) {
    Map<String, String> out = new HashMap<>();
    for (List<Container> cs :
        List.of(pod.getSpec().getInitContainers(), pod.getSpec().getContainers())) {
      cs.forEach(c -> out.put(c.getName(), c.getImage()));
    }
    return out;
  }
}
