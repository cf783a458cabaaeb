package io.meshinjector.engine.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code mesh:} selects the flavour's defaults, under the user's config. */
class MeshFlavourConfigTest {
  @Test
  void linkerdIsTheDefaultAndHasNoFlavourAnnotations() {
    MeshConfig c = ConfigLoader.fromYaml("");
    assertThat(c.tree().get("mesh").asText()).isEqualTo("linkerd");
    assertThat(c.engine().injection().proxyContainerName()).isEqualTo("linkerd-proxy");
    assertThat(c.engine().injection().optOutAnnotations()).isEmpty();
    assertThat(c.engine().injection().refusedAnnotations()).isEmpty();
    assertThat(c.engine().injection().podValues()).isEmpty();
    assertThat(ConfigLoader.fromYaml("mesh: linkerd\n").tree()).isEqualTo(c.tree());
  }

  @Test
  void istioBringsItsDefaultsAcrossSections() {
    MeshConfig c = ConfigLoader.fromYaml("mesh: istio\n");
    assertThat(c.engine().injection().proxyContainerName()).isEqualTo("istio-proxy");
    assertThat(c.engine().injection().otherMeshContainers())
        .contains("linkerd-proxy", "istio-init", "istio-validation")
        .doesNotContain("istio-proxy");
    assertThat(c.engine().injection().excludedNamespaces()).contains("istio-system");
    assertThat(c.engine().capabilities().cniDaemonSet().namespace()).isEqualTo("istio-system");
    assertThat(c.tree().at("/proxy/image").asText()).isEqualTo("docker.io/istio/proxyv2");
    assertThat(c.engine().injection().podValues().get("excludeInboundPorts").whenSet())
        .isEqualTo("${from},${proxy.ports.control}");
    assertThat(c.engine().injection().refusedAnnotations())
        .doesNotContain("sidecar.istio.io/rewriteAppHTTPProbers");
    assertThat(c.engine().injection().podValues().get("proxyConfig").object()).isTrue();
    assertThat(c.engine().injection().proxyAwaitFrom())
        .isEqualTo(
            new InjectionConfig.AwaitField(
                "proxy.istio.io/config", "holdApplicationUntilProxyStarts"));
    assertThat(c.tree().at("/proxy/appProbes/rewrite").asBoolean()).isTrue();
  }

  @Test
  void linkerdLeavesAppProbesAndProxyAwaitToItsOwnAnnotation() {
    MeshConfig c = ConfigLoader.defaults();
    assertThat(c.tree().at("/proxy/appProbes/rewrite").asBoolean()).isFalse();
    assertThat(c.engine().injection().proxyAwaitFrom()).isNull();
  }

  @Test
  void proxyAwaitFromNeedsBothHalves() {
    assertThatThrownBy(
            () ->
                ConfigLoader.fromYaml(
                    "injection: {proxyAwaitFrom: {annotation: a.example/config, field: \"\"}}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("injection.proxyAwaitFrom");
  }

  @Test
  void theUsersConfigOverlaysTheFlavourAndMayAddEntries() {
    MeshConfig c =
        ConfigLoader.fromYaml(
            "mesh: istio\n"
                + "proxy: {version: 1.28.1}\n"
                + "templates: {values: {istio: {caAddress: istiod-canary.istio-system.svc:15012},"
                + " mine: x}}\n"
                + "injection:\n"
                + "  podValues:\n"
                + "    interceptionMode: {pattern: 'REDIRECT|TPROXY'}\n"
                + "    extra: {from: ['label:team'], default: none, pattern: '[a-z]+'}\n");
    assertThat(c.tree().at("/proxy/version").asText()).isEqualTo("1.28.1");
    assertThat(c.tree().at("/templates/values/istio/caAddress").asText())
        .startsWith("istiod-canary");
    assertThat(c.tree().at("/templates/values/istio/revision").asText()).isEqualTo("default");
    assertThat(c.tree().at("/templates/values/mine").asText()).isEqualTo("x");
    PodValue mode = c.engine().injection().podValues().get("interceptionMode");
    assertThat(mode.pattern().matcher("TPROXY").matches()).isTrue();
    assertThat(mode.defaultValue()).isEqualTo("REDIRECT");
    assertThat(c.engine().injection().podValues().get("extra").from())
        .containsExactly(new PodValue.Source(true, "team"));
  }

  @Test
  void badValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> ConfigLoader.fromYaml("mesh: consul\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'mesh'")
        .hasMessageContaining("consul");
    assertThatThrownBy(
            () ->
                ConfigLoader.fromYaml(
                    "injection: {podValues: {x: {from: ['env:X'], default: '', pattern: '.*'}}}"))
        .hasMessageContaining("injection.podValues.x.from");
    assertThatThrownBy(
            () ->
                ConfigLoader.fromYaml(
                    "injection: {podValues: {x: {from: ['label:a'], default: '', pattern: '('}}}"))
        .hasMessageContaining("injection.podValues.x.pattern");
    assertThatThrownBy(
            () ->
                ConfigLoader.fromYaml(
                    "injection: {podValues: {x: {from: ['label:a'], default: '', pattern: 'a',"
                        + " typo: 1}}}"))
        .hasMessageContaining("injection.podValues.x.typo");
  }
}
