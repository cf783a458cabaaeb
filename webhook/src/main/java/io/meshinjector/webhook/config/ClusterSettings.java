package io.meshinjector.webhook.config;

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
    positive("webhook.cluster.namespaceReadTimeout", namespaceReadTimeout);
    positive("webhook.cluster.staleAfter", staleAfter);
    positive("webhook.cluster.labelResyncPeriod", labelResyncPeriod);
    if (labelPatchesPerSecond < 1) {
      throw new ConfigException(
          "config key 'webhook.cluster.labelPatchesPerSecond' must be at least 1, not "
              + labelPatchesPerSecond);
    }
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

  private static void positive(String key, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new ConfigException("config key '" + key + "' must be a positive duration, not " + d);
    }
  }
}
