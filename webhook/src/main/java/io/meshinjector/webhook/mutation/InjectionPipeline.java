package io.meshinjector.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.templates.JsonPatches;
import java.util.Objects;

/**
 * The one decision path of the architecture: decide, render, diff. The webhook and the CLI both
 * call {@link #run}; only the cluster view behind it differs.
 */
public final class InjectionPipeline {
  private final RuleEngine engine;
  private final PodMutator mutator;
  private final ObjectMapper mapper;

  public InjectionPipeline(RuleEngine engine, PodMutator mutator, ObjectMapper mapper) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.mutator = Objects.requireNonNull(mutator, "mutator");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  /**
   * The decision for one pod and, when it is injected, the RFC 6902 patch from the pod as given to
   * the injected pod.
   *
   * @param original the pod tree as received (the patch applies to it)
   * @param pod {@code original} as a Pod, with {@code metadata.namespace} set
   */
  public Result run(String workload, JsonNode original, Pod pod, ClusterView view) {
    Decision decision = engine.decide(workload, pod, view);
    if (!decision.inject()) {
      if (decision.outcome() instanceof Outcome.Skip skip
          && skip.reason() == SkipReason.ALREADY_INJECTED) {
        // a reinvocation: a later webhook may have added containers to the pod we injected
        Pod completed = mutator.complete(pod);
        if (completed != pod) {
          return new Result(decision, Patches.between(mapper, original, pod, completed));
        }
      }
      return new Result(decision, mapper.createArrayNode());
    }
    Pod rendered = mutator.render(pod, decision);
    return new Result(decision, Patches.between(mapper, original, pod, rendered));
  }

  /**
   * @param patch the JSON Patch; empty when the pod is not injected or rendering changed nothing,
   *     and for an already injected pod the completion of containers added after the injection
   */
  public record Result(Decision decision, ArrayNode patch) {}

  /** Diffs kept apart so the choice of base is in one place. */
  static final class Patches {
    private Patches() {}

    /**
     * Diffs the typed pods, whose serialisations agree field by field, and checks the patch against
     * the tree as received; where the typed round trip dropped or reshaped something the receiver
     * has, it diffs the received tree instead, so the patch always applies.
     */
    static ArrayNode between(ObjectMapper mapper, JsonNode original, Pod pod, Pod rendered) {
      ArrayNode patch = JsonPatches.diff(pod, rendered).patch();
      if (PatchCheck.applies(patch, original)) {
        return patch;
      }
      return JsonPatches.diff(original, mapper.valueToTree(rendered)).patch();
    }
  }
}
