package io.meshinjector.webhook.settings;

import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;
import java.time.Duration;

/**
 * The {@code webhook.cluster:} section: how {@code serve} keeps its informer-fed view and publishes
 * capability labels. Its defaults live in the rule engine's {@code defaults.yaml}.
 *
 * @param namespaceReadTimeout the longest an admission waits for a live read of a namespace the
 *     cache does not hold yet
 * @param staleAfter a view out of sync with the API server for longer than this makes every
 *     admission response carry a warning
 * @param labelPatchesPerSecond the publisher's rate limit
 * @param labelLeaseName the Lease that elects the one publishing replica
 * @param labelResyncPeriod how often the publisher compares every node even without a change
 */
public record ClusterSettings(
    Duration namespaceReadTimeout,
    Duration staleAfter,
    int labelPatchesPerSecond,
    String labelLeaseName,
    Duration labelResyncPeriod) {

  public ClusterSettings {
    ConfigException.requirePositive("webhook.cluster.namespaceReadTimeout", namespaceReadTimeout);
    ConfigException.requirePositive("webhook.cluster.staleAfter", staleAfter);
    ConfigException.requirePositive("webhook.cluster.labelResyncPeriod", labelResyncPeriod);
    ConfigException.requireAtLeastOne(
        "webhook.cluster.labelPatchesPerSecond", labelPatchesPerSecond);
    if (labelLeaseName == null || labelLeaseName.isBlank()) {
      throw new ConfigException("config key 'webhook.cluster.labelLeaseName' must name a Lease");
    }
  }

  public static ClusterSettings from(MeshConfig config) {
    ConfigSection s = config.section("webhook").section("cluster");
    ClusterSettings settings =
        new ClusterSettings(
            s.duration("namespaceReadTimeout"),
            s.duration("staleAfter"),
            s.integer("labelPatchesPerSecond"),
            s.text("labelLeaseName"),
            s.duration("labelResyncPeriod"));
    s.done();
    return settings;
  }
}
