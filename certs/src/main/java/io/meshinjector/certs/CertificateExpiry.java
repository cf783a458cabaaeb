package io.meshinjector.certs;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Expiry warnings for certs this process does not renew itself (cert-manager, an existing Secret):
 * the warning is the only way their owner learns of it before the API server does.
 */
public final class CertificateExpiry {
  /** How early a cert not managed here is warned about. */
  public static final Duration DEFAULT_WARN_BEFORE = Duration.ofDays(30);

  private CertificateExpiry() {}

  public static Duration remaining(X509Certificate certificate, Instant now) {
    return Duration.between(now, certificate.getNotAfter().toInstant());
  }

  /** A message when {@code certificate} expires within {@code warnBefore} of {@code now}. */
  public static Optional<String> warning(
      X509Certificate certificate, Instant now, Duration warnBefore) {
    Duration remaining = remaining(certificate, now);
    if (remaining.compareTo(warnBefore) > 0) {
      return Optional.empty();
    }
    String subject = certificate.getSubjectX500Principal().getName();
    Instant notAfter = certificate.getNotAfter().toInstant();
    if (remaining.isNegative() || remaining.isZero()) {
      return Optional.of(
          "serving certificate " + subject + " expired at " + notAfter + "; replace it now");
    }
    return Optional.of(
        "serving certificate "
            + subject
            + " expires at "
            + notAfter
            + " (in "
            + remaining.toDays()
            + " days, "
            + remaining.toHoursPart()
            + " hours) and is not renewed by mesh-injector; renew it where it is issued");
  }
}
