package io.meshinjector.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemReader;
import org.bouncycastle.util.io.pem.PemWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PemTest {
  private final CertificateIssuer issuer =
      new CertificateIssuer(MutableClock.at("2026-11-22T10:00:00Z"));
  private final SubjectNames names = SubjectNames.of(List.of("localhost"));

  @Test
  void ecKeyIsWrittenAsPkcs8WithItsNamedCurve() throws Exception {
    PrivateKey key = KeyType.EC_P256.generate().getPrivate();

    String pem = Pem.privateKey(key);

    assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----\n");
    assertThat(pem).doesNotContain("EC PRIVATE KEY");
    byte[] der = new PemReader(new java.io.StringReader(pem)).readPemObject().getContent();
    PrivateKeyInfo info = PrivateKeyInfo.getInstance(der);
    assertThat(info.getPrivateKeyAlgorithm().getParameters())
        .as("the curve travels with the key")
        .isEqualTo(SECObjectIdentifiers.secp256r1)
        .isInstanceOf(ASN1ObjectIdentifier.class);
    // the JDK alone, without BouncyCastle, reads it back onto the same curve
    var jdk =
        (ECPrivateKey) KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
    assertThat(jdk.getParams().getOrder()).isEqualTo(((ECPrivateKey) key).getParams().getOrder());
    assertThat(jdk.getS()).isEqualTo(((ECPrivateKey) key).getS());
  }

  @ParameterizedTest
  @EnumSource(KeyType.class)
  void setRoundTripsThroughPem(KeyType keyType) {
    CertificateSet set = issuer.newSet(names, Duration.ofDays(1), keyType);

    CertificateSet back =
        CertificateSet.fromPem(set.caPem(), set.certificatePem(), set.privateKeyPem());

    assertThat(back.caCertificates()).isEqualTo(set.caCertificates());
    assertThat(back.certificate()).isEqualTo(set.certificate());
    assertThat(back.privateKey().getEncoded()).isEqualTo(set.privateKey().getEncoded());
    assertThat(set.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(set.certificatePem()).startsWith("-----BEGIN CERTIFICATE-----");
  }

  @Test
  void bcDefaultWriterDropsTheCurveOfAJdkEcKeySuchAKeyIsRefused() throws Exception {
    // the trap itself: JcaPEMWriter saves a JDK EC key as SEC1 with no curve parameters
    PrivateKey key = KeyType.EC_P256.generate().getPrivate();
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(key);
    }
    assertThat(out.toString()).contains("BEGIN EC PRIVATE KEY");

    assertThatThrownBy(() -> Pem.readPrivateKey(out.toString()))
        .isInstanceOf(CertsException.class)
        .hasMessageContaining("no curve parameters");
  }

  @Test
  void readsSec1WithItsCurveAndPkcs1() throws Exception {
    ECPrivateKey ec = (ECPrivateKey) KeyType.EC_P256.generate().getPrivate();
    var sec1 =
        new org.bouncycastle.asn1.sec.ECPrivateKey(
            256, ec.getS(), null, SECObjectIdentifiers.secp256r1);
    StringWriter out = new StringWriter();
    try (PemWriter writer = new PemWriter(out)) {
      writer.writeObject(new PemObject("EC PRIVATE KEY", sec1.getEncoded()));
    }
    assertThat(((ECPrivateKey) Pem.readPrivateKey(out.toString())).getS()).isEqualTo(ec.getS());

    PrivateKey rsa = KeyType.RSA_2048.generate().getPrivate();
    StringWriter rsaOut = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(rsaOut)) {
      writer.writeObject(rsa);
    }
    assertThat(rsaOut.toString()).contains("BEGIN RSA PRIVATE KEY");
    assertThat(Pem.readPrivateKey(rsaOut.toString()).getEncoded()).isEqualTo(rsa.getEncoded());
  }

  @Test
  void caBundleIsConcatenatedPemAndItsBase64() {
    var a = issuer.newAuthority(Duration.ofDays(1), KeyType.EC_P256).certificate();
    var b = issuer.newAuthority(Duration.ofDays(1), KeyType.RSA_2048).certificate();

    String pem = CaBundle.pem(List.of(a, b));
    String base64 = CaBundle.base64(List.of(a, b));

    assertThat(pem.split("-----BEGIN CERTIFICATE-----", -1)).hasSize(3);
    assertThat(
            new String(
                Base64.getDecoder().decode(base64), java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo(pem);
    assertThat(CaBundle.fromBase64(base64)).containsExactly(a, b);
    assertThat(CaBundle.fromPem(pem)).containsExactly(a, b);
  }

  @Test
  void aKeyWhereCertificatesBelongIsAnError() {
    String keyPem = Pem.privateKey(KeyType.EC_P256.generate().getPrivate());
    assertThatThrownBy(() -> Pem.readCertificates(keyPem))
        .isInstanceOf(CertsException.class)
        .hasMessageContaining("CERTIFICATE");
    assertThatThrownBy(() -> Pem.readPrivateKey("")).hasMessageContaining("no PRIVATE KEY");
  }
}
