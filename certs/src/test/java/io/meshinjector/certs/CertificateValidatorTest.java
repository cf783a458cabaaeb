package io.meshinjector.certs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CertificateValidatorTest {
  private final MutableClock clock = MutableClock.at("2026-11-22T10:00:00Z");
  private final CertificateIssuer issuer = new CertificateIssuer(clock);
  private final CertificateValidator validator = new CertificateValidator(clock);
  private final SubjectNames names =
      SubjectNames.of(
          List.of("web", "web.shop", "web.shop.svc", "web.shop.svc.cluster.local", "localhost"));

  @Test
  void freshSetIsValidAndCoversItsNames() {
    CertificateSet set = issuer.newSet(names, Duration.ofDays(30), KeyType.EC_P256);
    Validation validation = validator.validate(set, names);
    assertThat(validation.problems()).isEmpty();
    assertThat(validation.isValid()).isTrue();
  }

  @Test
  void expiredSetIsInvalid() {
    CertificateSet set = issuer.newSet(names, Duration.ofDays(30), KeyType.EC_P256);
    clock.advance(Duration.ofDays(31));
    assertThat(validator.validate(set, names).problems())
        .anyMatch(p -> p.startsWith("tls.crt expired at"))
        .anyMatch(p -> p.startsWith("tls.crt does not chain to ca.crt"));
  }

  @Test
  void keyFromAnotherSetIsDetected() {
    CertificateSet a = issuer.newSet(names, Duration.ofDays(30), KeyType.EC_P256);
    CertificateSet b = issuer.newSet(names, Duration.ofDays(30), KeyType.EC_P256);
    CertificateSet mixed = new CertificateSet(a.caCertificates(), a.certificate(), b.privateKey());
    assertThat(validator.validate(mixed, names).problems())
        .containsExactly("tls.key does not belong to tls.crt");
  }

  @Test
  void certFromAnotherCaDoesNotChain() {
    CertificateSet a = issuer.newSet(names, Duration.ofDays(30), KeyType.EC_P256);
    CertificateSet b = issuer.newSet(names, Duration.ofDays(30), KeyType.EC_P256);
    CertificateSet mixed = new CertificateSet(b.caCertificates(), a.certificate(), a.privateKey());
    assertThat(validator.validate(mixed, names).isValid()).isFalse();
    assertThat(
            CertificateValidator.chainProblem(a.certificate(), b.caCertificates(), clock.instant()))
        .isNotNull();
    assertThat(
            CertificateValidator.chainProblem(
                a.certificate(),
                List.of(b.caCertificates().get(0), a.caCertificates().get(0)),
                clock.instant()))
        .as("either CA of a two-CA bundle will do")
        .isNull();
  }

  @Test
  void missingNamesAreListed() {
    CertificateSet set =
        issuer.newSet(SubjectNames.of(List.of("web")), Duration.ofDays(30), KeyType.EC_P256);
    Validation validation =
        validator.validate(set, SubjectNames.of(List.of("web", "web.shop", "10.1.2.3")));
    assertThat(validation.problems()).containsExactly("tls.crt does not cover web.shop, 10.1.2.3");
  }

  @Test
  void withoutCaTheChainIsNotCheckedButNoted() {
    CertificateSet set = issuer.newSet(names, Duration.ofDays(30), KeyType.EC_P256);
    Validation validation =
        validator.validate(
            new CertificateSet(List.of(), set.certificate(), set.privateKey()), names);
    assertThat(validation.isValid()).isTrue();
    assertThat(validation.warnings()).containsExactly("no ca.crt, chain not checked");
  }

  @Test
  void hostMatchingFollowsRfc6125() {
    var cert =
        issuer
            .newSet(
                SubjectNames.of(List.of("web.shop.svc", "*.example.com", "localhost")),
                Duration.ofDays(1),
                KeyType.EC_P256)
            .certificate();
    assertThat(CertificateValidator.matchesHost(cert, "WEB.shop.svc.")).isTrue();
    assertThat(CertificateValidator.matchesHost(cert, "a.example.com")).isTrue();
    assertThat(CertificateValidator.matchesHost(cert, "a.b.example.com")).isFalse();
    assertThat(CertificateValidator.matchesHost(cert, "example.com")).isFalse();
    assertThat(CertificateValidator.matchesHost(cert, "127.0.0.1")).isTrue();
    assertThat(CertificateValidator.matchesHost(cert, "[::1]")).isTrue();
    assertThat(CertificateValidator.matchesHost(cert, "10.0.0.1")).isFalse();
    assertThat(CertificateValidator.matchesHost(cert, "web")).isFalse();
  }
}
