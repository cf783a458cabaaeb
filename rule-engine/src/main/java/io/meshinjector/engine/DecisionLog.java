package io.meshinjector.engine;

import io.meshinjector.engine.decision.CompletionRule;
import io.meshinjector.engine.decision.TraceStep;
import java.util.ArrayList;
import java.util.List;

/** The trace, warnings and run-to-completion rule of one decision, as its steps write them. */
final class DecisionLog {
  private final List<TraceStep> trace = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  /** How the run-to-completion rule treated the pod; null while it has not applied. */
  private CompletionRule completion;

  void add(TraceStep step) {
    trace.add(step);
  }

  void warn(String warning) {
    warnings.add(warning);
  }

  /** Records how the run-to-completion rule treated the pod, and says so in the trace. */
  void completed(CompletionRule rule, String detail) {
    completion = rule;
    trace.add(new TraceStep("completion", detail));
  }

  /** Where the warnings stand now, for {@link #dropWarningsSince}. */
  int warningMark() {
    return warnings.size();
  }

  /** Drops the warnings of an attempt the decision abandons; its trace stays. */
  void dropWarningsSince(int mark) {
    warnings.subList(mark, warnings.size()).clear();
  }

  List<TraceStep> trace() {
    return trace;
  }

  List<String> warnings() {
    return warnings;
  }

  CompletionRule completion() {
    return completion;
  }
}
