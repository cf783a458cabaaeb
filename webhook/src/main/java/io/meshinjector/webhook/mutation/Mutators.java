package io.meshinjector.webhook.mutation;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Annotations;

/** Where the webhook gets its {@link PodMutator}. */
public final class Mutators {
  private Mutators() {}

  /**
   * The mutator for {@code config}. Until injector-templates' renderer is wired in, it only writes
   * the decision annotation, so the transport and the CLI can be exercised end to end.
   */
  public static PodMutator forConfig(MeshConfig config) {
    return Mutators::annotateOnly;
  }

  private static Pod annotateOnly(Pod original, io.meshinjector.engine.decision.Decision decision) {
    return new PodBuilder(original)
        .editOrNewMetadata()
        .addToAnnotations(Annotations.DECISION, decision.summary())
        .endMetadata()
        .build();
  }
}
