package io.meshinjector.templates.internal;

import static io.meshinjector.templates.internal.ModelJson.MAPPER;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.meshinjector.engine.decision.NodeConstraint;
import io.meshinjector.engine.decision.NodeRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Narrows a pod's required node affinity by the engine's node constraint. */
public final class NodeAffinities {
  private NodeAffinities() {}

  /**
   * The pod's affinity, as a new object, with the requirements ANDed into every required {@code
   * nodeSelectorTerm}: terms are ORed, so a term of our own would widen the choice instead of
   * narrowing it. A requirement a term already has is not added again. A term the pod has that is
   * empty matches no node, and is left empty: with our requirements in it, it would match nodes the
   * pod's other terms exclude.
   */
  public static Affinity required(Affinity pods, NodeConstraint constraint) {
    // a copy: the terms below are written into, and they are the pod's
    Affinity affinity = pods != null ? new AffinityBuilder(pods).build() : new Affinity();
    NodeAffinity node =
        affinity.getNodeAffinity() != null ? affinity.getNodeAffinity() : new NodeAffinity();
    NodeSelector required =
        node.getRequiredDuringSchedulingIgnoredDuringExecution() != null
            ? node.getRequiredDuringSchedulingIgnoredDuringExecution()
            : new NodeSelector();
    List<NodeSelectorTerm> terms =
        required.getNodeSelectorTerms() == null
            ? new ArrayList<>()
            : new ArrayList<>(required.getNodeSelectorTerms());
    boolean ours = terms.isEmpty();
    if (ours) {
      terms.add(new NodeSelectorTerm());
    }
    for (NodeSelectorTerm term : terms) {
      if (!ours && matchesNothing(term)) {
        continue;
      }
      List<NodeSelectorRequirement> exprs =
          term.getMatchExpressions() == null
              ? new ArrayList<>()
              : new ArrayList<>(term.getMatchExpressions());
      for (NodeRequirement r : constraint.matchExpressions()) {
        if (exprs.stream().noneMatch(e -> same(e, r))) {
          exprs.add(
              new NodeSelectorRequirement(r.key(), r.operator(), new ArrayList<>(r.values())));
        }
      }
      term.setMatchExpressions(exprs);
    }
    required.setNodeSelectorTerms(terms);
    node.setRequiredDuringSchedulingIgnoredDuringExecution(required);
    affinity.setNodeAffinity(node);
    return affinity;
  }

  /** The operation that narrows the pod's required node affinity, where that changes it. */
  public static void patchRequired(PodPatch patch, Affinity pods, NodeConstraint constraint) {
    Affinity narrowed = required(pods, constraint);
    if (!narrowed.equals(pods)) {
      patch.setMember(
          "affinity",
          "nodeAffinity",
          MAPPER.valueToTree(narrowed.getNodeAffinity()),
          MAPPER.valueToTree(narrowed));
    }
  }

  private static boolean matchesNothing(NodeSelectorTerm term) {
    return (term.getMatchExpressions() == null || term.getMatchExpressions().isEmpty())
        && (term.getMatchFields() == null || term.getMatchFields().isEmpty());
  }

  private static boolean same(NodeSelectorRequirement e, NodeRequirement r) {
    List<String> values = e.getValues() == null ? List.of() : e.getValues();
    return Objects.equals(e.getKey(), r.key())
        && Objects.equals(e.getOperator(), r.operator())
        && values.equals(r.values());
  }
}
