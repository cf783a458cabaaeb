package io.meshinjector.certs;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * PEM in and out. Private keys are always written as PKCS#8 ({@code BEGIN PRIVATE KEY}): BC's
 * default writer saves a JDK EC key as a bare SEC1 key without its curve, Spring loads it anyway,
 * and every TLS handshake then fails.
 */
public final class Pem {
  public static final String PRIVATE_KEY = "PRIVATE KEY";
  public static final String CERTIFICATE = "CERTIFICATE";

  private Pem() {}

  public static String certificate(X509Certificate certificate) {
    return certificates(List.of(certificate));
  }

  /** Concatenated PEM blocks, in order: the form of a caBundle and of a chain file. */
  public static String certificates(List<X509Certificate> certificates) {
    StringWriter out = new StringWriter();
    try (PemWriter writer = new PemWriter(out)) {
      for (X509Certificate certificate : certificates) {
        writer.writeObject(new PemObject(CERTIFICATE, certificate.getEncoded()));
      }
    } catch (IOException | CertificateEncodingException e) {
      throw new CertsException("cannot encode a certificate as PEM", e);
    }
    return out.toString();
  }

  /** PKCS#8, whatever the key type; an EC key keeps its named curve in the algorithm parameters. */
  public static String privateKey(PrivateKey key) {
    if (!"PKCS#8".equalsIgnoreCase(key.getFormat())) {
      throw new CertsException(
          "private key of format " + key.getFormat() + " cannot be written as PKCS#8");
    }
    StringWriter out = new StringWriter();
    try (PemWriter writer = new PemWriter(out)) {
      writer.writeObject(new PemObject(PRIVATE_KEY, key.getEncoded()));
    } catch (IOException e) {
      throw new CertsException("cannot encode a private key as PEM", e);
    }
    return out.toString();
  }

  /** Every certificate in {@code pem}; anything else in the text is an error. */
  public static List<X509Certificate> readCertificates(String pem) {
    List<X509Certificate> certificates = new ArrayList<>();
    JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      Object object;
      while ((object = parser.readObject()) != null) {
        if (!(object instanceof X509CertificateHolder holder)) {
          throw new CertsException(
              "expected only CERTIFICATE blocks, found " + object.getClass().getSimpleName());
        }
        certificates.add(converter.getCertificate(holder));
      }
    } catch (CertsException e) {
      throw e;
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new CertsException("cannot read PEM certificates: " + e.getMessage(), e);
    }
    return List.copyOf(certificates);
  }

  public static X509Certificate readCertificate(String pem) {
    List<X509Certificate> certificates = readCertificates(pem);
    if (certificates.isEmpty()) {
      throw new CertsException("no CERTIFICATE block found");
    }
    return certificates.get(0);
  }

  /**
   * Reads a PKCS#8 key, and also the older PKCS#1 RSA and SEC1 EC forms that other tools write; a
   * SEC1 key without its curve is refused with the reason rather than loaded half-broken.
   */
  public static PrivateKey readPrivateKey(String pem) {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      Object object = parser.readObject();
      if (object == null) {
        throw new CertsException("no PRIVATE KEY block found");
      }
      PrivateKeyInfo info;
      if (object instanceof PrivateKeyInfo pkcs8) {
        info = pkcs8;
      } else if (object instanceof PEMKeyPair pair) {
        info = pair.getPrivateKeyInfo();
      } else {
        throw new CertsException(
            "expected a PRIVATE KEY block, found " + object.getClass().getSimpleName());
      }
      return toJdkKey(info);
    } catch (CertsException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // BouncyCastle throws unchecked exceptions for bad base64 or DER inside a PEM block; a
      // damaged key must reach callers as the one exception they handle
      throw new CertsException("cannot read PEM private key: " + e.getMessage(), e);
    }
  }

  static PrivateKey toJdkKey(PrivateKeyInfo info) {
    var oid = info.getPrivateKeyAlgorithm().getAlgorithm();
    String algorithm;
    if (oid.equals(X9ObjectIdentifiers.id_ecPublicKey)) {
      if (info.getPrivateKeyAlgorithm().getParameters() == null) {
        throw new CertsException(
            "EC private key has no curve parameters; write it as PKCS#8 (BEGIN PRIVATE KEY)");
      }
      algorithm = "EC";
    } else if (oid.equals(PKCSObjectIdentifiers.rsaEncryption)) {
      algorithm = "RSA";
    } else {
      throw new CertsException("unsupported private key algorithm " + oid);
    }
    try {
      return KeyFactory.getInstance(algorithm)
          .generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
    } catch (IOException | GeneralSecurityException e) {
      throw new CertsException("cannot decode " + algorithm + " private key: " + e.getMessage(), e);
    }
  }
}
