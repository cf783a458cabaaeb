package io.meshinjector.certs.rotation;

import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;

/**
 * The one next step for a managed certificate set, with the reason for a log line and an event.
 * {@link RotationPlanner#apply} performs it; the caller persists the result and brings the webhook
 * configuration's caBundle in line with the new set's CA list.
 */
public sealed interface RotationAction {
  String reason();

  /** All is well; plan again at {@code reviewAt} at the latest. */
  record Keep(String reason, Instant reviewAt) implements RotationAction {}

  /** Nothing usable: make a new CA and a serving cert from it. */
  record Bootstrap(String reason) implements RotationAction {}

  /**
   * Make a new CA and add it to the bundle next to the old one. The serving cert stays as it is
   * until clients have had the new bundle for the overlap.
   */
  record RolloverCa(String reason) implements RotationAction {}

  /** Issue a new serving cert from the current signing CA. */
  record RenewServing(String reason) implements RotationAction {}

  /** Remove CAs from the bundle: no serving cert from them is in use any more. */
  record RetireCa(String reason, List<X509Certificate> retired) implements RotationAction {
    public RetireCa {
      retired = List.copyOf(retired);
    }
  }
}
