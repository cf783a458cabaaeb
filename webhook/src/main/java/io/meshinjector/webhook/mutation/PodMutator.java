package io.meshinjector.webhook.mutation;

import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.Decision;

/**
 * Renders an injection decision into a pod. The seam to injector-templates, so the webhook and the
 * CLI do not depend on how the templates are built.
 */
@FunctionalInterface
public interface PodMutator {
  /** The pod as it should be admitted; {@code original} is left unchanged. */
  Pod render(Pod original, Decision decision);

  /**
   * An already injected pod sent again (the API server's reinvocation after a later webhook added
   * containers), completed for those containers; {@code original} itself when there is nothing to
   * do.
   */
  default Pod complete(Pod original) {
    return original;
  }
}
