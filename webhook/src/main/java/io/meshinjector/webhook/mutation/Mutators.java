package io.meshinjector.webhook.mutation;

import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.templates.PodInjector;
import io.meshinjector.templates.TemplateConfig;

/** Where the webhook and the CLI get their {@link PodMutator}: the templates of the config. */
public final class Mutators {
  private Mutators() {}

  /**
   * @throws io.meshinjector.engine.config.ConfigException naming a template key that is wrong
   */
  public static PodMutator forConfig(MeshConfig config) {
    return new PodInjector(TemplateConfig.from(config))::render;
  }
}
