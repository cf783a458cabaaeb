package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The config digest each injected pod records: what changes the injected pod changes it, what does
 * not (the injector's version, the order of keys, the engine's policy) leaves it.
 */
class ConfigDigestTest {
  static String digest(String yaml) {
    return TemplateConfig.from(ConfigLoader.fromYaml(yaml)).configDigest();
  }

  @Test
  void isStableForOneConfigAndHasTheDocumentedShape() {
    String once = digest("proxy: {version: v1}\n");
    assertThat(once).matches("sha256:[0-9a-f]{16}").isEqualTo(digest("proxy: {version: v1}\n"));
  }

  @Test
  void changesWithTheProxyVersionTheValuesATemplateOrThePodValues() {
    Set<String> digests =
        new LinkedHashSet<>(
            List.of(
                digest("proxy: {version: v1}\n"),
                digest("proxy: {version: v2}\n"),
                digest("proxy: {version: v1, logLevel: debug}\n"),
                digest("proxy: {version: v1}\ntemplates: {values: {extra: one}}\n"),
                // what the pods of an IPv6 plan render with instead
                digest("proxy: {version: v1}\ntemplates: {ipv6Values: {extra: one}}\n"),
                digest(
                    "proxy: {version: v1}\ntemplates:\n  volumes: |\n    volumes:\n"
                        + "      - name: linkerd-identity-end-entity\n        emptyDir: {}\n"),
                digest(
                    "proxy: {version: v1}\ninjection:\n  podValues:\n    tier:\n"
                        + "      from: [label:tier]\n      default: web\n      pattern: \"[a-z]+\"\n"),
                digest("mesh: istio\n")));
    assertThat(digests).hasSize(8);
  }

  @Test
  void ignoresTheInjectorVersionKeyOrderAndTheEnginesPolicy() {
    MeshConfig mesh = ConfigLoader.fromYaml("proxy: {version: v1}\n");
    TemplateConfig config = TemplateConfig.from(mesh);
    Map<String, JsonNode> otherVersion = new HashMap<>(config.values());
    otherVersion.put("injector.version", JsonNodeFactory.instance.textNode("other"));
    assertThat(
            ConfigDigest.of(
                config.templates(),
                otherVersion,
                config.ipv6Values(),
                mesh.tree().path("injection").path("podValues"),
                config.linkerdAnnotations()))
        .isEqualTo(config.configDigest());
    assertThat(digest("proxy: {logLevel: debug, version: v1}\n"))
        .isEqualTo(digest("proxy: {version: v1, logLevel: debug}\n"));
    // the per-node path is decided per pod: the policy that chooses it is no injected config
    assertThat(digest("proxy: {version: v1}\npolicy: {mixedNodes: reject}\n"))
        .isEqualTo(digest("proxy: {version: v1}\n"));
  }

  @Test
  void everyInjectedPodRecordsItInBothFlavours() {
    for (String yaml : List.of("proxy: {version: v1}\n", "mesh: istio\n")) {
      TemplateConfig config = TemplateConfig.from(ConfigLoader.fromYaml(yaml));
      Pod pod =
          Injected.pod(
              new PodInjector(config),
              new PodBuilder()
                  .withNewMetadata()
                  .withName("web")
                  .withNamespace("default")
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("app")
                  .withImage("app:1")
                  .endContainer()
                  .endSpec()
                  .build(),
              Fixtures.inject(
                  "default/Pod/web", PathOption.INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, true));
      assertThat(pod.getMetadata().getAnnotations())
          .as(yaml)
          .containsEntry(Annotations.CONFIG_DIGEST, config.configDigest());
      String version = config.proxy().version();
      assertThat(
              pod.getMetadata()
                  .getAnnotations()
                  .getOrDefault(
                      Annotations.PROXY_VERSION,
                      pod.getMetadata().getAnnotations().get(Annotations.LINKERD_PROXY_VERSION)))
          .as(yaml + ": a proxy version is recorded")
          .isEqualTo(version);
    }
  }
}
