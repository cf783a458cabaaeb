package io.meshinjector.engine.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.decision.PathOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigLoaderTest {
  @Test
  void defaultsAreTheDocumentedOnes() {
    EngineConfig c = ConfigLoader.defaults().engine();
    assertThat(c.policy().preference())
        .containsExactly(PathOption.CNI, PathOption.INIT_NFT, PathOption.INIT_LEGACY);
    assertThat(c.policy().mixedNodes()).isEqualTo(MixedNodes.CONSTRAIN);
    assertThat(c.policy().noViablePath()).isEqualTo(NoViablePath.REJECT);
    assertThat(c.policy().pinCni()).isEqualTo(PinCni.ALWAYS);
    assertThat(c.policy().publishLabels()).isTrue();
    assertThat(c.policy().runToCompletion()).isEqualTo(RunToCompletion.REJECT);
    assertThat(c.capabilities().probeTtl()).isEqualTo(Duration.ofHours(1));
    assertThat(c.capabilities().assumeUnknown())
        .isEqualTo(new AssumeUnknown(true, false, false, false));
    assertThat(c.injection().excludedNamespaces()).contains("kube-system");
  }

  @Test
  void userYamlOverlaysDefaultsKeyByKey() {
    EngineConfig c =
        ConfigLoader.fromYaml(
                """
                policy:
                  mixedNodes: reject
                capabilities:
                  probeTtl: 90m
                  overrides:
                  - nodeSelector: {pool: rhel}
                    set: {iptables-legacy: unavailable}
                """)
            .engine();
    assertThat(c.policy().mixedNodes()).isEqualTo(MixedNodes.REJECT);
    assertThat(c.policy().pinCni()).isEqualTo(PinCni.ALWAYS);
    assertThat(c.capabilities().probeTtl()).isEqualTo(Duration.ofMinutes(90));
    assertThat(c.capabilities().overrides())
        .containsExactly(
            new CapabilityOverride(
                Map.of("pool", "rhel"),
                Map.of(CapabilityKey.IPTABLES_LEGACY, Verdict.UNAVAILABLE)));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "polcy: {}                                        | 'polcy' is not known",
        "policy: {mixedNode: reject}                      | 'policy.mixedNode' is not known",
        "policy: {mixedNodes: maybe}                      | 'policy.mixedNodes' has invalid value 'maybe': allowed",
        "policy: {preference: [cni, init/iptables]}       | 'policy.preference': invalid redirect path 'init/iptables'",
        "policy: {preference: []}                         | policy.preference must list at least one path",
        "policy: {publishLabels: yes please}              | 'policy.publishLabels' must be true or false",
        "policy: {runToCompletion: wait}                  | config key 'policy.runToCompletion' has invalid value 'wait': allowed [reject, skip, inject]",
        "capabilities: {probeTtl: soon}                   | 'capabilities.probeTtl' must be a duration",
        "capabilities: {overrides: [{set: {ebpf: ready}}]} | 'capabilities.overrides[0].set': unknown capability key 'ebpf'",
        "capabilities: {overrides: [{set: {cni: available}}]} | invalid verdict 'available' for capability 'cni'",
        "capabilities: {overrides: [{set: {cni: ready}, nodeSelektor: {}}]} | 'capabilities.overrides[0].nodeSelektor' is not known",
        "explain: {maxCandidateNodes: 0}                  | maxCandidateNodes must be at least 1",
        "- just a list                                    | must be a map of sections",
        "policy: [a]                                      | 'policy' must be a map",
        "policy: {mixedNodes: [unclosed                   | not valid YAML",
      })
  void invalidConfigNamesTheKey(String yaml, String message) {
    assertThatThrownBy(() -> ConfigLoader.fromYaml(yaml))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }

  @Test
  void emptyDocumentGivesDefaults() {
    assertThat(ConfigLoader.fromYaml("").engine()).isEqualTo(ConfigLoader.defaults().engine());
  }

  @ParameterizedTest
  @CsvSource({"90s, 90", "5m, 300", "1h30m, 5400", "2d, 172800", "PT1H, 3600"})
  void durations(String text, long seconds) {
    assertThat(ConfigSection.parseDuration(text)).isEqualTo(Duration.ofSeconds(seconds));
  }

  @Test
  void selectorsAreReplacedWhole() {
    assertThat(
            ConfigLoader.fromYaml("capabilities: {cniDaemonSet: {podSelector: {app: my-cni}}}")
                .engine()
                .capabilities()
                .cniDaemonSet()
                .podSelector())
        .isEqualTo(Map.of("app", "my-cni"));
  }

  @Test
  void linkerdRefusesAPreferenceOfOnlyNativeNftables() {
    assertThatThrownBy(() -> ConfigLoader.fromYaml("policy: {preference: [init/nftables]}"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("policy.preference' offers only init/nftables")
        .hasMessageContaining("Linkerd's proxy-init has no native nftables mode");
    assertThat(
            ConfigLoader.fromYaml("mesh: istio\npolicy: {preference: [init/nftables]}")
                .engine()
                .policy()
                .preference())
        .containsExactly(PathOption.INIT_NFTABLES);
  }
}
