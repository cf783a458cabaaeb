package io.meshinjector.webhook.mutation;

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
      public Pod render(Pod original, Decision decision) {
        return injector.render(original, decision);
      }

      @Override
      public Pod complete(Pod original) {
        return injector.complete(original);
      }
    };
  }
}
