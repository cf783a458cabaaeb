package io.meshinjector.certs;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Issues CAs and serving certificates at the time of an injected clock. Uses the JDK's providers
 * for keys and signatures; BouncyCastle only builds the certificate structures, so nothing is
 * registered globally.
 */
public final class CertificateIssuer {
  /**
   * notBefore is set this far back, so a peer whose clock runs a little behind does not reject a
   * certificate issued moments ago.
   */
  public static final Duration BACKDATE = Duration.ofMinutes(5);

  /** How far apart the clocks of two replicas, or of Helm's host and a replica, may be. */
  static final Duration CLOCK_SKEW = Duration.ofMinutes(1);

  /**
   * When {@code certificate} was really made, as seen at {@code now}. This issuer backdates
   * notBefore by {@link #BACKDATE}; Helm's {@code genCA} and {@code genSignedCert}, which make the
   * chart's first set, do not. A notBefore that, moved forward by the backdate, lies further ahead
   * of now than two clocks can disagree was not backdated: the certificate was made at its
   * notBefore. Otherwise it is taken as one of ours (after {@link #BACKDATE} has passed the two
   * readings cannot be told apart, and a Helm certificate is then taken as made up to that much
   * later than it was).
   */
  public static Instant issuedAt(X509Certificate certificate, Instant now) {
    Instant notBefore = certificate.getNotBefore().toInstant();
    Instant backdated = notBefore.plus(BACKDATE);
    return backdated.isAfter(now.plus(CLOCK_SKEW)) ? notBefore : backdated;
  }

  public static final String CA_NAME_PREFIX = "mesh-injector-ca";

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Clock clock;

  public CertificateIssuer(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * A self-signed CA, path length 0 (it signs serving certs only). Its CN carries the issue time
   * and a random suffix, because during a rollover two CAs sit in one bundle and clients pick the
   * issuer by subject name.
   */
  public CertificateAuthority newAuthority(Duration validity, KeyType keyType) {
    Instant now = clock.instant();
    String cn =
        CA_NAME_PREFIX
            + "@"
            + now.getEpochSecond()
            + "-"
            + HexFormat.of().formatHex(randomBytes(4));
    KeyPair pair = keyType.generate();
    X500Name subject = name(cn);
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  subject,
                  serial(),
                  notBefore(now),
                  date(now.plus(validity)),
                  subject,
                  pair.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      // self-signed: it is its own authority
      keyIdentifiers(
          builder, ext, pair.getPublic(), ext.createAuthorityKeyIdentifier(pair.getPublic()));
      return new CertificateAuthority(sign(builder, pair.getPrivate()), pair.getPrivate());
    } catch (GeneralSecurityException | CertIOException e) {
      throw new CertsException("cannot build CA certificate: " + e.getMessage(), e);
    }
  }

  /**
   * A serving (TLS server) certificate for {@code names}, signed by {@code ca}. It never outlives
   * the CA: a chain is only as valid as its shortest-lived link.
   */
  public KeyedCertificate issueServing(
      CertificateAuthority ca, SubjectNames names, Duration validity, KeyType keyType) {
    if (names.isEmpty()) {
      throw new CertsException("a serving certificate needs at least one DNS name or IP address");
    }
    Instant now = clock.instant();
    Instant notAfter = now.plus(validity);
    Instant caNotAfter = ca.certificate().getNotAfter().toInstant();
    if (notAfter.isAfter(caNotAfter)) {
      notAfter = caNotAfter;
    }
    if (!notAfter.isAfter(now)) {
      throw new CertsException(
          "CA "
              + ca.certificate().getSubjectX500Principal().getName()
              + " expired at "
              + caNotAfter);
    }
    KeyPair pair = keyType.generate();
    int usage = KeyUsage.digitalSignature | (keyType.isRsa() ? KeyUsage.keyEncipherment : 0);
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded()),
                  serial(),
                  notBefore(now),
                  date(notAfter),
                  name(names.commonName()),
                  pair.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(Extension.keyUsage, true, new KeyUsage(usage))
              .addExtension(
                  Extension.extendedKeyUsage,
                  false,
                  new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
              .addExtension(Extension.subjectAlternativeName, false, generalNames(names));
      keyIdentifiers(
          builder, ext, pair.getPublic(), ext.createAuthorityKeyIdentifier(ca.certificate()));
      return new KeyedCertificate(sign(builder, ca.privateKey()), pair.getPrivate());
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new CertsException("cannot build serving certificate: " + e.getMessage(), e);
    }
  }

  /**
   * A fresh CA and a serving cert from it, both valid for {@code validity}. The CA's key is not
   * kept: such a set is renewed whole, never re-signed.
   */
  public CertificateSet newSet(SubjectNames names, Duration validity, KeyType keyType) {
    return newSet(names, validity, validity, keyType);
  }

  public CertificateSet newSet(
      SubjectNames names, Duration caValidity, Duration servingValidity, KeyType keyType) {
    CertificateAuthority ca = newAuthority(caValidity, keyType);
    KeyedCertificate serving = issueServing(ca, names, servingValidity, keyType);
    return new CertificateSet(
        List.of(ca.certificate()), serving.certificate(), serving.privateKey());
  }

  private static GeneralNames generalNames(SubjectNames names) {
    List<GeneralName> out = new ArrayList<>();
    for (String dns : names.dnsNames()) {
      out.add(new GeneralName(GeneralName.dNSName, dns));
    }
    for (String ip : names.ipAddresses()) {
      out.add(new GeneralName(GeneralName.iPAddress, ip));
    }
    return new GeneralNames(out.toArray(GeneralName[]::new));
  }

  /** Lets a validator find the issuing key in a bundle that holds an old and a new CA. */
  private static void keyIdentifiers(
      X509v3CertificateBuilder builder,
      JcaX509ExtensionUtils ext,
      PublicKey subject,
      AuthorityKeyIdentifier authority)
      throws CertIOException {
    builder
        .addExtension(
            Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(subject))
        .addExtension(Extension.authorityKeyIdentifier, false, authority);
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
      throws GeneralSecurityException {
    try {
      var signer = new JcaContentSignerBuilder(KeyType.signatureAlgorithmFor(key)).build(key);
      return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    } catch (OperatorCreationException e) {
      throw new CertsException("cannot sign certificate: " + e.getMessage(), e);
    }
  }

  private static X500Name name(String commonName) {
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
  }

  /** Positive, 127 bits: unique without coordination and within RFC 5280's 20 octets. */
  private static BigInteger serial() {
    return new BigInteger(127, RANDOM);
  }

  private static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    RANDOM.nextBytes(bytes);
    return bytes;
  }

  private static Date notBefore(Instant now) {
    return date(now.minus(BACKDATE));
  }

  private static Date date(Instant instant) {
    return Date.from(instant);
  }
}
