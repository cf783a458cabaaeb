package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.templates.PodInjector;
import java.util.Objects;

/**
 * The one decision path: decide, then render the decision as a patch with the config's templates.
 * Built only by {@link PodAdmission#from}, so the webhook and the CLI run the same engine and
 * templates; only the cluster view behind it differs.
 */
public final class InjectionPipeline {
  private final RuleEngine engine;
  private final PodInjector templates;

  InjectionPipeline(RuleEngine engine, PodInjector templates) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.templates = Objects.requireNonNull(templates, "templates");
  }

  /**
   * The decision for one pod and, when it is injected, the RFC 6902 patch from the pod as given to
   * the injected pod.
   *
   * @param original the pod tree as received (the patch applies to it)
   * @param pod {@code original} as a Pod, with {@code metadata.namespace} set
   */
  Result run(String workload, JsonNode original, Pod pod, ClusterView view) {
    Decision decision = engine.decide(workload, pod, view);
    if (decision.inject()) {
      return new Result(decision, templates.patch(original, pod, decision).patch());
    }
    if (decision.outcome() instanceof Outcome.Skip skip
        && skip.reason() == SkipReason.ALREADY_INJECTED) {
      // a reinvocation: a later webhook may have added containers to the pod we injected
      return new Result(decision, templates.completion(original, pod).patch());
    }
    return new Result(decision, JsonNodeFactory.instance.arrayNode());
  }

  /**
   * @param patch the JSON Patch; empty when the pod is not injected or rendering changed nothing,
   *     and for an already injected pod the completion of containers added after the injection
   */
  public record Result(Decision decision, ArrayNode patch) {}
}
