package io.meshinjector.engine.probe;

import io.meshinjector.engine.capability.Verdict;
import java.util.Objects;

/** One capability's verdict and the sentence that says why. */
public record ProbeFinding(Verdict verdict, String reason) {
  public ProbeFinding {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(reason, "reason");
  }

  public static ProbeFinding unknown(String reason) {
    return new ProbeFinding(Verdict.UNKNOWN, reason);
  }
}
