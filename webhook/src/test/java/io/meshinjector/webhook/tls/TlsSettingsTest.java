package io.meshinjector.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TlsSettingsTest {
  @Test
  void defaultsAreSelfManagedInThePodsNamespace() {
    TlsSettings s = TlsSettings.from(ConfigLoader.defaults(), "mesh-system");
    assertThat(s.mode()).isEqualTo(TlsMode.SELF_MANAGED);
    assertThat(s.namespace()).isEqualTo("mesh-system");
    assertThat(s.secretName()).isEqualTo("mesh-injector-tls");
    assertThat(s.webhookConfigurationName()).isEqualTo("mesh-injector");
    assertThat(s.leaseName()).isEqualTo("mesh-injector-certs");
    assertThat(s.resyncPeriod()).isEqualTo(Duration.ofMinutes(1));
    assertThat(s.expiryWarning()).isEqualTo(Duration.ofDays(30));
    assertThat(s.serviceNames())
        .containsExactly(
            "mesh-injector",
            "mesh-injector.mesh-system",
            "mesh-injector.mesh-system.svc",
            "mesh-injector.mesh-system.svc.cluster.local");
    assertThat(TlsSettings.from(ConfigLoader.defaults(), null).namespace())
        .isEqualTo("mesh-injector");
  }

  @Test
  void anUnknownModeOrKeyIsRefusedByName() {
    assertThatThrownBy(() -> TlsFixtures.settings("vault"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("webhook.tls.mode")
        .hasMessageContaining("cert-manager");
    assertThatThrownBy(
            () ->
                TlsSettings.from(
                    ConfigLoader.fromYaml("webhook:\n  tls:\n    secretNmae: x\n"), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("webhook.tls.secretNmae");
  }

  @Test
  void selfSignedNamesGainTheServiceNamesInAPod() {
    List<String> configured = List.of("localhost", "127.0.0.1");
    assertThat(TlsSettings.selfSignedNames(ConfigLoader.defaults(), configured, null))
        .isEqualTo(configured);
    assertThat(TlsSettings.selfSignedNames(ConfigLoader.defaults(), configured, "mesh"))
        .containsExactly(
            "localhost",
            "127.0.0.1",
            "mesh-injector",
            "mesh-injector.mesh",
            "mesh-injector.mesh.svc",
            "mesh-injector.mesh.svc.cluster.local");
  }
}
