package io.meshinjector.certs.rotation;

import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.KeyType;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * How long certificates live and when they are replaced.
 *
 * @param caValidity lifetime of a newly made CA
 * @param servingValidity lifetime of a serving cert (capped at its CA's end)
 * @param renewFraction share of a cert's lifetime after which it is replaced; 2/3 leaves a third of
 *     the lifetime to notice and fix a failing renewal
 * @param overlap how long old and new stay side by side: a new CA is in the bundle this long before
 *     a serving cert from it is used, and an old CA stays this long after the last serving cert
 *     from it was replaced. It must cover the kubelet's Secret sync plus the server's reload quiet
 *     period.
 * @param keyType key type of new certs
 */
public record RotationPolicy(
    Duration caValidity,
    Duration servingValidity,
    double renewFraction,
    Duration overlap,
    KeyType keyType) {

  public static final double TWO_THIRDS = 2.0 / 3.0;

  public RotationPolicy {
    Objects.requireNonNull(caValidity, "caValidity");
    Objects.requireNonNull(servingValidity, "servingValidity");
    Objects.requireNonNull(overlap, "overlap");
    Objects.requireNonNull(keyType, "keyType");
    if (!(renewFraction > 0 && renewFraction < 1)) {
      throw new IllegalArgumentException("renewFraction must be in (0, 1), was " + renewFraction);
    }
    if (servingValidity.isNegative() || servingValidity.isZero()) {
      throw new IllegalArgumentException("servingValidity must be positive");
    }
    if (caValidity.compareTo(servingValidity) < 0) {
      throw new IllegalArgumentException("caValidity must be at least servingValidity");
    }
    if (overlap.isNegative()) {
      throw new IllegalArgumentException("overlap must not be negative");
    }
    // a cert must still be valid when its replacement has waited out the overlap
    Duration margin = scale(servingValidity, 1 - renewFraction);
    if (overlap.compareTo(margin) >= 0) {
      throw new IllegalArgumentException(
          "overlap " + overlap + " must be shorter than the renewal margin " + margin);
    }
  }

  /** CA 5 years, serving cert 90 days, both replaced at 2/3, 10 minutes of overlap, EC P-256. */
  public static RotationPolicy defaults() {
    return new RotationPolicy(
        Duration.ofDays(5 * 365),
        Duration.ofDays(90),
        TWO_THIRDS,
        Duration.ofMinutes(10),
        KeyType.defaultType());
  }

  /**
   * When the leader replaces {@code certificate}, made under this policy's {@code validity} (its
   * {@link #caValidity} or {@link #servingValidity}): {@code (1 - renewFraction) x validity} before
   * its end, counted from when it was issued rather than from its backdated notBefore (a share of
   * the whole span would put a minutes-long certificate's renewal before its issue). A certificate
   * that lives longer than {@code validity} now (the chart's first set, whose lifetime Helm counts
   * in whole days, or one made before an operator shortened the lifetimes) ends, for this purpose,
   * where one issued at the same time under {@code validity} would: it is replaced on the
   * configured schedule, not on its own. When it was issued is read at {@code now} ({@link
   * CertificateIssuer#issuedAt}): Helm's first set is not backdated, and counting it as if it were
   * put its renewal five minutes late.
   */
  public Instant renewAt(X509Certificate certificate, Duration validity, Instant now) {
    Instant notAfter = certificate.getNotAfter().toInstant();
    Instant configuredEnd = CertificateIssuer.issuedAt(certificate, now).plus(validity);
    Instant end = configuredEnd.isBefore(notAfter) ? configuredEnd : notAfter;
    return end.minus(scale(validity, 1 - renewFraction));
  }

  private static Duration scale(Duration duration, double factor) {
    return Duration.ofMillis((long) (duration.toMillis() * factor));
  }
}
