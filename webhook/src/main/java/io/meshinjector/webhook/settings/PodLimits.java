package io.meshinjector.webhook.settings;

import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;

/**
 * The {@code webhook.podLimits:} section: how many containers, volumes and env entries a pod may
 * have before the webhook refuses to read it (counted by {@code admission.PodValidation}).
 */
public record PodLimits(int maxContainers, int maxVolumes, int maxEnvEntries) {
  public static final String KEY = "webhook.podLimits.";

  public PodLimits {
    ConfigException.requireAtLeastOne(KEY + "maxContainers", maxContainers);
    ConfigException.requireAtLeastOne(KEY + "maxVolumes", maxVolumes);
    ConfigException.requireAtLeastOne(KEY + "maxEnvEntries", maxEnvEntries);
  }

  public static PodLimits from(MeshConfig config) {
    ConfigSection s = config.section("webhook").section("podLimits");
    PodLimits limits =
        new PodLimits(
            s.integer("maxContainers"), s.integer("maxVolumes"), s.integer("maxEnvEntries"));
    s.done();
    return limits;
  }
}
