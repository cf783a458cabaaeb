package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import org.junit.jupiter.api.Test;

/**
 * The proxy's name is set twice, once for the engine's gate and once in the proxy template; the two
 * must agree or the gate takes our own re-injected pods for another mesh's.
 */
class TemplateConfigTest {
  private static TemplateConfig load(String yaml) {
    return TemplateConfig.from(ConfigLoader.fromYaml(yaml));
  }

  @Test
  void aGateNameOtherThanTheBuiltInTemplatesIsRefusedNamingBothKeysAndValues() {
    assertThatThrownBy(() -> load("injection:\n  proxyContainerName: mesh-proxy\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'injection.proxyContainerName' is 'mesh-proxy'")
        .hasMessageContaining("'templates.proxy' (built-in) names it 'linkerd-proxy'");
  }

  @Test
  void aReplacedProxyTemplateWithAnotherNameIsRefused() {
    assertThatThrownBy(() -> load("templates:\n  proxy: {name: mesh-proxy, image: p}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'injection.proxyContainerName' is 'linkerd-proxy'")
        .hasMessageContaining("'templates.proxy' names it 'mesh-proxy'");
  }

  @Test
  void aRenamedRedirectContainerMustBeOneTheGateSkipsPodsFor() {
    String renamed = "templates:\n  proxyInit: {name: mesh-init, image: i}\n";
    assertThatThrownBy(() -> load(renamed))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'templates.proxyInit' names its container 'mesh-init'")
        .hasMessageContaining("'injection.otherMeshContainers' must list");

    TemplateConfig listed =
        load(
            renamed
                + "injection:\n  otherMeshContainers: [mesh-init, linkerd-network-validator]\n");
    assertThat(listed.proxyContainerName()).isEqualTo("linkerd-proxy");
  }

  @Test
  void matchingNamesLoadAndTheInjectorUsesThem() {
    TemplateConfig config =
        load(
            "injection:\n  proxyContainerName: mesh-proxy\n"
                + "templates:\n  proxy: {name: mesh-proxy, image: p}\n");
    assertThat(config.proxyContainerName()).isEqualTo("mesh-proxy");
    PodInjector injector = new PodInjector(config);

    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .withNamespace("shop")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .endContainer()
            .endSpec()
            .build();
    Pod once =
        Injected.pod(
            injector,
            pod,
            Fixtures.inject("shop/Pod/p", PathOption.INIT_NFT, ProxyPlacement.CONTAINER, true));
    assertThat(once.getSpec().getContainers())
        .extracting(Container::getName)
        .containsExactly("mesh-proxy", "app");
  }

  @Test
  void aProxyNameFromAValueIsResolvedAtLoad() {
    String template = "templates:\n  proxy: {name: '${values.proxyName}', image: p}\n";
    assertThat(load(template + "  values: {proxyName: linkerd-proxy}\n").proxyContainerName())
        .isEqualTo("linkerd-proxy");
    assertThatThrownBy(() -> load(template + "  values: {proxyName: other}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("names it 'other'");
  }

  @Test
  void aProxyNameThatDependsOnThePodOrIsMissingIsRefused() {
    assertThatThrownBy(() -> load("templates:\n  proxy: {name: 'p-${pod.namespace}', image: p}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("templates.proxy")
        .hasMessageContaining("must not depend on the pod");
    assertThatThrownBy(() -> load("templates:\n  proxy: {image: p}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("must be set");
  }

  @Test
  void aRedirectContainerNamedLikeTheProxyIsRefused() {
    for (String key : new String[] {"proxyInit", "validator"}) {
      assertThatThrownBy(() -> load("templates:\n  " + key + ": {name: linkerd-proxy, image: i}\n"))
          .as(key)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("templates." + key)
          .hasMessageContaining("named 'linkerd-proxy' like the proxy");
    }
  }
}
