package io.meshinjector.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CertificateIssuerTest {
  private final MutableClock clock = MutableClock.at("2026-11-22T10:00:00Z");
  private final CertificateIssuer issuer = new CertificateIssuer(clock);
  private final SubjectNames names =
      SubjectNames.of(
          List.of(
              "mesh-injector",
              "mesh-injector.mesh",
              "mesh-injector.mesh.svc",
              "mesh-injector.mesh.svc.cluster.local",
              "localhost"));

  @ParameterizedTest
  @EnumSource(KeyType.class)
  void jdkPkixValidatorAcceptsTheChain(KeyType keyType) throws Exception {
    var ca = issuer.newAuthority(Duration.ofDays(30), keyType);
    var serving = issuer.issueServing(ca, names, Duration.ofDays(30), keyType);

    pkixValidate(serving.certificate(), ca.certificate(), clock.instant());
  }

  /** The set's one CA certificate is a CA that signed itself and the set's serving certificate. */
  @ParameterizedTest
  @EnumSource(KeyType.class)
  void aNewSetCarriesTheCaThatSignedItsServingCertificate(KeyType keyType) throws Exception {
    CertificateSet set = issuer.newSet(names, Duration.ofDays(30), keyType);

    assertThat(set.caCertificates()).hasSize(1);
    X509Certificate ca = set.caCertificates().get(0);
    ca.verify(ca.getPublicKey());
    assertThat(ca.getBasicConstraints()).isZero();
    assertThat(ca.getSubjectX500Principal()).isEqualTo(set.certificate().getIssuerX500Principal());
    pkixValidate(set.certificate(), ca, clock.instant());
  }

  @Test
  void keySizesFollowTheKeyType() {
    var ec = issuer.newSet(names, Duration.ofDays(1), KeyType.EC_P256).certificate();
    var rsa = issuer.newSet(names, Duration.ofDays(1), KeyType.RSA_3072).certificate();
    assertThat(((ECPublicKey) ec.getPublicKey()).getParams().getCurve().getField().getFieldSize())
        .isEqualTo(256);
    assertThat(((RSAPublicKey) rsa.getPublicKey()).getModulus().bitLength()).isEqualTo(3072);
    assertThat(ec.getSigAlgName()).isEqualTo("SHA256withECDSA");
    assertThat(rsa.getSigAlgName()).isEqualTo("SHA256withRSA");
  }

  @Test
  void pkixRejectsTheChainOutsideItsValidityAndUnderAnotherCa() {
    var ca = issuer.newAuthority(Duration.ofDays(30), KeyType.EC_P256);
    var other = issuer.newAuthority(Duration.ofDays(30), KeyType.EC_P256);
    X509Certificate serving =
        issuer.issueServing(ca, names, Duration.ofDays(30), KeyType.EC_P256).certificate();

    assertThatThrownBy(
            () ->
                pkixValidate(serving, ca.certificate(), clock.instant().plus(Duration.ofDays(31))))
        .isInstanceOf(CertPathValidatorException.class);
    assertThatThrownBy(() -> pkixValidate(serving, other.certificate(), clock.instant()))
        .isInstanceOf(CertPathValidatorException.class);
  }

  @Test
  void servingCertCarriesTheSansAndServerAuth() throws Exception {
    X509Certificate serving =
        issuer.newSet(names, Duration.ofDays(30), KeyType.EC_P256).certificate();

    SubjectNames sans = CertificateValidator.namesOf(serving);
    assertThat(sans.dnsNames())
        .containsExactly(
            "mesh-injector",
            "mesh-injector.mesh",
            "mesh-injector.mesh.svc",
            "mesh-injector.mesh.svc.cluster.local",
            "localhost");
    assertThat(sans.ipAddresses()).containsExactly("127.0.0.1", "0:0:0:0:0:0:0:1");
    assertThat(serving.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
    assertThat(serving.getBasicConstraints()).isEqualTo(-1);
    assertThat(serving.getKeyUsage()[0]).as("digitalSignature").isTrue();
    assertThat(serving.getSubjectX500Principal().getName()).isEqualTo("CN=mesh-injector");
  }

  @Test
  void issuedAtReadsTheBackdateOfOurOwnAndNotOfACertificateMadeAtItsNotBefore() {
    X509Certificate ours = issuer.newAuthority(Duration.ofDays(1), KeyType.EC_P256).certificate();
    assertThat(CertificateIssuer.issuedAt(ours, clock.instant())).isEqualTo(clock.instant());
    assertThat(CertificateIssuer.issuedAt(ours, clock.instant().plus(Duration.ofDays(1))))
        .isEqualTo(clock.instant());
    // Helm's genCA: notBefore is when it ran; read within the backdate, it cannot be ours
    Instant helmRan = clock.instant();
    X509Certificate helms =
        new CertificateIssuer(new MutableClock(helmRan.plus(CertificateIssuer.BACKDATE)))
            .newAuthority(Duration.ofDays(1), KeyType.EC_P256)
            .certificate();
    assertThat(helms.getNotBefore().toInstant()).isEqualTo(helmRan);
    assertThat(CertificateIssuer.issuedAt(helms, helmRan)).isEqualTo(helmRan);
    assertThat(CertificateIssuer.issuedAt(helms, helmRan.plus(Duration.ofMinutes(3))))
        .isEqualTo(helmRan);
    // past the backdate less the clocks' skew the two cannot be told apart: taken as ours
    assertThat(CertificateIssuer.issuedAt(helms, helmRan.plus(Duration.ofMinutes(5))))
        .isEqualTo(helmRan.plus(CertificateIssuer.BACKDATE));
  }

  @Test
  void caIsAPathLengthZeroCertSigner() {
    X509Certificate ca = issuer.newAuthority(Duration.ofDays(365), KeyType.EC_P256).certificate();
    assertThat(ca.getBasicConstraints()).isZero();
    assertThat(ca.getKeyUsage()[5]).as("keyCertSign").isTrue();
    assertThat(ca.getSubjectX500Principal().getName()).startsWith("CN=mesh-injector-ca@");
    assertThat(ca.getNotBefore().toInstant())
        .isEqualTo(clock.instant().minus(CertificateIssuer.BACKDATE));
    assertThat(ca.getNotAfter().toInstant()).isEqualTo(clock.instant().plus(Duration.ofDays(365)));
  }

  @Test
  void twoCasMadeAtTheSameInstantHaveDistinctSubjects() {
    var a = issuer.newAuthority(Duration.ofDays(1), KeyType.EC_P256).certificate();
    var b = issuer.newAuthority(Duration.ofDays(1), KeyType.EC_P256).certificate();
    assertThat(a.getSubjectX500Principal()).isNotEqualTo(b.getSubjectX500Principal());
  }

  @Test
  void servingCertNeverOutlivesItsCa() {
    var ca = issuer.newAuthority(Duration.ofDays(10), KeyType.EC_P256);
    var serving = issuer.issueServing(ca, names, Duration.ofDays(90), KeyType.EC_P256);
    assertThat(serving.certificate().getNotAfter()).isEqualTo(ca.certificate().getNotAfter());
  }

  @Test
  void anExpiredCaIssuesNothing() {
    var ca = issuer.newAuthority(Duration.ofDays(1), KeyType.EC_P256);
    clock.advance(Duration.ofDays(2));
    assertThatThrownBy(() -> issuer.issueServing(ca, names, Duration.ofDays(1), KeyType.EC_P256))
        .isInstanceOf(CertsException.class)
        .hasMessageContaining("expired");
  }

  static void pkixValidate(X509Certificate leaf, X509Certificate ca, Instant at) throws Exception {
    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
    params.setRevocationEnabled(false);
    params.setDate(Date.from(at));
    CertPathValidator.getInstance("PKIX")
        .validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), params);
  }
}
