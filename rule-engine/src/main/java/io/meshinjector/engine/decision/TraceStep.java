package io.meshinjector.engine.decision;

import java.util.Objects;

/** One step of a decision: the rule that looked at the pod and what it concluded. */
public record TraceStep(String rule, String detail) {
  public TraceStep {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(detail, "detail");
  }

  @Override
  public String toString() {
    return rule + ": " + detail;
  }
}
