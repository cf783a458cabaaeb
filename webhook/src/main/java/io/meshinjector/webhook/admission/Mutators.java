package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.templates.PodInjector;
import io.meshinjector.templates.TemplateConfig;

/** Where the webhook and the CLI get their {@link PodMutator}: the templates of the config. */
public final class Mutators {
  private Mutators() {}

  /**
   * @throws io.meshinjector.engine.config.ConfigException naming a template key that is wrong
   */
  public static PodMutator forConfig(MeshConfig config) {
    PodInjector injector = new PodInjector(TemplateConfig.from(config));
    return new PodMutator() {
      @Override
      public ArrayNode inject(JsonNode received, Pod pod, Decision decision) {
        return injector.patch(received, pod, decision).patch();
      }

      @Override
      public ArrayNode complete(JsonNode received, Pod pod) {
        return injector.completion(received, pod).patch();
      }
    };
  }
}
