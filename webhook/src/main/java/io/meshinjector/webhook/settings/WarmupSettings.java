package io.meshinjector.webhook.settings;

import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;
import java.time.Duration;

/**
 * The {@code webhook.warmup:} section.
 *
 * @param admissions in-process admissions of the example pod before readiness; 0 turns it off
 * @param maxDuration the warm-up stops after this long, done or not
 */
public record WarmupSettings(int admissions, Duration maxDuration) {
  public WarmupSettings {
    if (admissions < 0) {
      throw new ConfigException("config key 'webhook.warmup.admissions' must be 0 or more");
    }
    ConfigException.requirePositive("webhook.warmup.maxDuration", maxDuration);
  }

  public static WarmupSettings from(MeshConfig config) {
    ConfigSection s = config.section("webhook").section("warmup");
    WarmupSettings settings =
        new WarmupSettings(s.integer("admissions"), s.duration("maxDuration"));
    s.done();
    return settings;
  }
}
