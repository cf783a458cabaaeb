package io.meshinjector.webhook.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import org.junit.jupiter.api.Test;

class ServerSettingsTest {
  @Test
  void theDefaultsAreRead() {
    ServerSettings settings = ServerSettings.from(ConfigLoader.defaults());
    assertThat(settings.acceptBacklog()).isEqualTo(100);
    assertThat(settings.maxEventLoops()).isEqualTo(100);
    assertThat(settings.maxConnections()).isEqualTo(2000);
  }

  @Test
  void aKeyNamedAfterTomcatIsRefusedNamingTheKnownOnes() {
    assertThatThrownBy(
            () ->
                ServerSettings.from(
                    ConfigLoader.fromYaml("webhook:\n  server:\n    acceptCount: 50\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("config key 'webhook.server.acceptCount' is not known")
        .hasMessageContaining("acceptBacklog");
    assertThatThrownBy(
            () ->
                ServerSettings.from(
                    ConfigLoader.fromYaml("webhook:\n  server:\n    maxThreads: 4\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("config key 'webhook.server.maxThreads' is not known")
        .hasMessageContaining("maxEventLoops");
  }

  @Test
  void theNewKeysAreTaken() {
    ServerSettings settings =
        ServerSettings.from(
            ConfigLoader.fromYaml(
                "webhook:\n  server:\n    acceptBacklog: 7\n    maxEventLoops: 3\n"));
    assertThat(settings.acceptBacklog()).isEqualTo(7);
    assertThat(settings.maxEventLoops()).isEqualTo(3);
  }
}
