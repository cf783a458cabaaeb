package io.meshinjector.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.meshinjector.certs.rotation.RotationPolicy;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.webhook.support.TlsFixtures;
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
  void theLeadersLifetimesComeFromTheConfig() {
    TlsSettings defaults = TlsSettings.from(ConfigLoader.defaults(), null);
    assertThat(defaults.rotationPolicy()).isEqualTo(RotationPolicy.defaults());

    TlsSettings s =
        TlsSettings.from(
            ConfigLoader.fromYaml(
                "webhook:\n  tls:\n    caValidity: 730d\n    servingValidity: 30d\n"),
            null);

    RotationPolicy policy = s.rotationPolicy();
    assertThat(policy.caValidity()).isEqualTo(Duration.ofDays(730));
    assertThat(policy.servingValidity()).isEqualTo(Duration.ofDays(30));
    assertThat(policy.renewFraction()).isEqualTo(RotationPolicy.TWO_THIRDS);
    assertThat(policy.overlap()).isEqualTo(RotationPolicy.defaults().overlap());
  }

  @Test
  void lifetimesRenewalPointAndOverlapGoDownToMinutes() {
    RotationPolicy policy =
        TlsSettings.from(
                ConfigLoader.fromYaml(
                    "webhook:\n  tls:\n    caValidity: 2h\n    servingValidity: 4m\n"
                        + "    renewBefore: 1m\n    overlap: 30s\n"),
                null)
            .rotationPolicy();
    assertThat(policy.servingValidity()).isEqualTo(Duration.ofMinutes(4));
    assertThat(policy.renewFraction()).isEqualTo(0.75);
    assertThat(policy.overlap()).isEqualTo(Duration.ofSeconds(30));

    assertThatThrownBy(
            () ->
                TlsSettings.from(
                    ConfigLoader.fromYaml(
                        "webhook:\n  tls:\n    servingValidity: 4m\n    renewBefore: 4m\n"),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'webhook.tls.renewBefore' (4m) must be longer than 0 and shorter");
    // the old cert must outlive the overlap after its replacement
    assertThatThrownBy(
            () ->
                TlsSettings.from(
                    ConfigLoader.fromYaml(
                        "webhook:\n  tls:\n    servingValidity: 4m\n    renewBefore: 1m\n"
                            + "    overlap: 2m\n"),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("overlap");
  }

  @Test
  void aServingCertLongerThanItsCaIsRefusedAtStartUp() {
    assertThatThrownBy(
            () ->
                TlsSettings.from(
                    ConfigLoader.fromYaml(
                        "webhook:\n  tls:\n    caValidity: 30d\n    servingValidity: 90d\n"),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("webhook.tls.servingValidity")
        .hasMessageContaining("webhook.tls.caValidity");
    // shorter than three overlaps: renewal would be due before the new cert could be used
    assertThatThrownBy(
            () ->
                TlsSettings.from(
                    ConfigLoader.fromYaml("webhook:\n  tls:\n    servingValidity: 20m\n"), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("overlap");
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
