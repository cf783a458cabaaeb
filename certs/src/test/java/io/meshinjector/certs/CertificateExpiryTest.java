package io.meshinjector.certs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CertificateExpiryTest {
  private final MutableClock clock = MutableClock.at("2026-11-22T10:00:00Z");

  @Test
  void warnsOnlyWithinThirtyDaysOfExpiry() {
    var cert =
        new CertificateIssuer(clock)
            .newSet(SubjectNames.of(List.of("web")), Duration.ofDays(90), KeyType.EC_P256)
            .certificate();
    var warn = CertificateExpiry.DEFAULT_WARN_BEFORE;

    clock.advance(Duration.ofDays(59));
    assertThat(CertificateExpiry.warning(cert, clock.instant(), warn)).isEmpty();

    clock.advance(Duration.ofDays(1));
    assertThat(CertificateExpiry.warning(cert, clock.instant(), warn))
        .hasValueSatisfying(m -> assertThat(m).contains("CN=web").contains("in 30 days"));

    clock.advance(Duration.ofDays(31));
    assertThat(CertificateExpiry.warning(cert, clock.instant(), warn))
        .hasValueSatisfying(m -> assertThat(m).contains("expired at"));
  }
}
