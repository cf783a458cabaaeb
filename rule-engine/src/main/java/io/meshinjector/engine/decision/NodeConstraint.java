package io.meshinjector.engine.decision;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Requirements the renderer ANDs into every {@code nodeSelectorTerm} of the pod's required node
 * affinity (terms are ORed, so adding a term of its own would widen, not narrow, the choice).
 */
public record NodeConstraint(List<NodeRequirement> matchExpressions) {
  public NodeConstraint {
    matchExpressions = List.copyOf(matchExpressions);
    if (matchExpressions.isEmpty()) {
      throw new IllegalArgumentException("a node constraint needs at least one requirement");
    }
  }

  @Override
  public String toString() {
    return matchExpressions.stream()
        .map(NodeRequirement::toString)
        .collect(Collectors.joining(", "));
  }
}
