package io.meshinjector.webhook.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;
import java.util.Optional;

/**
 * The {@code webhook.podLimits:} section: how many containers, volumes and env entries a pod may
 * have before the webhook refuses to read it. Counted on the JSON tree, before the pod is bound to
 * the model or walked by the engine, so an oversized pod costs one pass over three lists.
 */
public record PodLimits(int maxContainers, int maxVolumes, int maxEnvEntries) {
  private static final String KEY = "webhook.podLimits.";

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

  /**
   * The first limit {@code pod} is past, as the caller should read it: the limit's key and value,
   * the JSON path and the count found there; empty when the pod is within every limit.
   */
  public Optional<String> problem(JsonNode pod) {
    JsonNode spec = pod.path("spec");
    int containers = size(spec.path("containers")) + size(spec.path("initContainers"));
    if (containers > maxContainers) {
      return Optional.of(
          over(
              "spec.containers + spec.initContainers",
              containers,
              "containers",
              "maxContainers",
              maxContainers));
    }
    int volumes = size(spec.path("volumes"));
    if (volumes > maxVolumes) {
      return Optional.of(over("spec.volumes", volumes, "volumes", "maxVolumes", maxVolumes));
    }
    int env = 0;
    for (String list : new String[] {"containers", "initContainers"}) {
      for (JsonNode container : spec.path(list)) {
        env += size(container.path("env"));
      }
    }
    if (env > maxEnvEntries) {
      return Optional.of(
          over(
              "spec.containers[*].env + spec.initContainers[*].env",
              env,
              "env entries",
              "maxEnvEntries",
              maxEnvEntries));
    }
    return Optional.empty();
  }

  private static String over(String path, int count, String what, String key, int limit) {
    return path
        + " has "
        + count
        + " "
        + what
        + ", more than the limit "
        + KEY
        + key
        + " = "
        + limit;
  }

  private static int size(JsonNode list) {
    return list.isArray() ? list.size() : 0;
  }
}
