package io.meshinjector.webhook.http;

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

  public HealthController(ApplicationAvailability availability) {
    this.availability = availability;
  }

  @GetMapping("/healthz")
  public ResponseEntity<String> healthz() {
    return answer(availability.getLivenessState() == LivenessState.CORRECT);
  }

  @GetMapping("/readyz")
  public ResponseEntity<String> readyz() {
    return answer(availability.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
  }

  private static ResponseEntity<String> answer(boolean ok) {
    return ResponseEntity.status(ok ? 200 : 503)
        .contentType(MediaType.TEXT_PLAIN)
        .body(ok ? "ok\n" : "not ready\n");
  }
}
