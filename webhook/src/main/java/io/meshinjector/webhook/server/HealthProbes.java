package io.meshinjector.webhook.server;

import io.meshinjector.webhook.cluster.ViewHealth;
import java.util.Objects;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;

/**
 * What {@code /healthz} and {@code /readyz} answer. They are served on the HTTPS port, so the
 * kubelet's probes go through the same TLS stack as the API server's requests.
 */
public final class HealthProbes {
  /** A probe's answer: 200 when ok, else 503, with a line of text saying why. */
  public record Result(boolean ok, String text) {}

  private static final Result OK = new Result(true, "ok\n");
  private static final Result NOT_OK = new Result(false, "not ready\n");
  private static final Result NOT_SYNCED =
      new Result(false, "not ready: the cluster view has not synced yet\n");

  private static final Result DOES_NOT_FIT =
      new Result(
          false,
          "not ready: the cluster view does not fit the heap; the log names the memory limit to"
              + " set\n");

  private final ApplicationAvailability availability;
  private final ViewHealth view;

  public HealthProbes(ApplicationAvailability availability, ViewHealth view) {
    this.availability = Objects.requireNonNull(availability, "availability");
    this.view = Objects.requireNonNull(view, "view");
  }

  public Result liveness() {
    return availability.getLivenessState() == LivenessState.CORRECT ? OK : NOT_OK;
  }

  /**
   * Ready once the application accepts traffic and the cluster view has synced once: before that,
   * every namespace would look unannotated and every node unknown. A view that later falls behind
   * keeps the replica ready; deciding from the last known state beats refusing every pod. A view
   * that does not fit the heap makes it not ready: it would die of the next burst.
   */
  public Result readiness() {
    if (!view.synced()) {
      return NOT_SYNCED;
    }
    if (!view.fits()) {
      return DOES_NOT_FIT;
    }
    return availability.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC ? OK : NOT_OK;
  }
}
