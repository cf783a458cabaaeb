package io.meshinjector.certs;

import java.util.List;

/**
 * The outcome of checking a {@link CertificateSet}. {@code problems} make it unusable; {@code
 * warnings} are worth a log line (e.g. no CA to check the chain against).
 */
public record Validation(List<String> problems, List<String> warnings) {
  public Validation {
    problems = List.copyOf(problems);
    warnings = List.copyOf(warnings);
  }

  public boolean isValid() {
    return problems.isEmpty();
  }

  /** One line for a log or an error message. */
  public String summary() {
    if (isValid()) {
      return warnings.isEmpty() ? "valid" : "valid (" + String.join("; ", warnings) + ")";
    }
    return String.join("; ", problems);
  }
}
