package io.meshinjector.engine.rules;

import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a pod runs to completion: its containers are not restarted once they exit successfully,
 * so the pod ends when they do. That is {@code restartPolicy} {@code Never} or {@code OnFailure},
 * whatever owns the pod (Jobs and CronJobs must use one of them; a bare Pod may too). Absent means
 * {@code Always}, the API server's default.
 */
public final class RunsToCompletion {
  private static final Set<String> COMPLETING = Set.of("Never", "OnFailure");

  private RunsToCompletion() {}

  /** The pod's restart policy when it runs to completion, else empty. */
  public static Optional<String> restartPolicy(PodSpec spec) {
    if (spec == null || spec.getRestartPolicy() == null) {
      return Optional.empty();
    }
    // the API server accepts these values exactly as written, so no case folding
    return COMPLETING.contains(spec.getRestartPolicy())
        ? Optional.of(spec.getRestartPolicy())
        : Optional.empty();
  }
}
