package io.meshinjector.webhook.http;

import io.meshinjector.webhook.cluster.ViewHealth;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /healthz} and {@code /readyz} on the HTTPS port, so the kubelet's probes go through the
 * same TLS stack as the API server's requests.
 */
@RestController
public class HealthController {
  private final ApplicationAvailability availability;
  private final ViewHealth view;

  public HealthController(ApplicationAvailability availability, ViewHealth view) {
    this.availability = availability;
    this.view = view;
  }

  @GetMapping("/healthz")
  public ResponseEntity<String> healthz() {
    return answer(availability.getLivenessState() == LivenessState.CORRECT);
  }

  /**
   * Ready once the application accepts traffic and the cluster view has synced once: before that,
   * every namespace would look unannotated and every node unknown. A view that later falls behind
   * keeps the replica ready; deciding from the last known state beats refusing every pod.
   */
  @GetMapping("/readyz")
  public ResponseEntity<String> readyz() {
    if (!view.synced()) {
      return ResponseEntity.status(503)
          .contentType(MediaType.TEXT_PLAIN)
          .body("not ready: the cluster view has not synced yet\n");
    }
    return answer(availability.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
  }

  private static ResponseEntity<String> answer(boolean ok) {
    return ResponseEntity.status(ok ? 200 : 503)
        .contentType(MediaType.TEXT_PLAIN)
        .body(ok ? "ok\n" : "not ready\n");
  }
}
