package io.meshinjector.engine.probe;

import io.meshinjector.engine.capability.Verdict;
import java.util.Objects;

/** One capability's verdict and the sentence that says why. */
public record Outcome(Verdict verdict, String reason) {
  public Outcome {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(reason, "reason");
  }

  public static Outcome unknown(String reason) {
    return new Outcome(Verdict.UNKNOWN, reason);
  }
}
