package io.meshinjector.webhook.support;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A CA and a localhost serving certificate for the TLS tests, as PEM files (PKCS#8 key). */
public final class TestCerts {
  private TestCerts() {}

  public static void write(Path dir) throws Exception {
    Files.createDirectories(dir);
    KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair caKeys = gen.generateKeyPair();
    KeyPair leafKeys = gen.generateKeyPair();
    Instant now = Instant.now();
    X500Name caName = new X500Name("CN=mesh-injector-test-ca");
    X509Certificate ca =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        caName,
                        BigInteger.ONE,
                        Date.from(now.minus(1, ChronoUnit.HOURS)),
                        Date.from(now.plus(1, ChronoUnit.DAYS)),
                        caName,
                        caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .build(
                        new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
    X509Certificate leaf =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        caName,
                        BigInteger.TWO,
                        Date.from(now.minus(1, ChronoUnit.HOURS)),
                        Date.from(now.plus(1, ChronoUnit.DAYS)),
                        new X500Name("CN=localhost"),
                        leafKeys.getPublic())
                    .addExtension(
                        Extension.subjectAlternativeName,
                        false,
                        new GeneralNames(
                            new GeneralName[] {
                              new GeneralName(GeneralName.dNSName, "localhost"),
                              new GeneralName(GeneralName.iPAddress, "127.0.0.1")
                            }))
                    .build(
                        new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
    Files.writeString(dir.resolve("ca.crt"), pem("CERTIFICATE", ca.getEncoded()));
    Files.writeString(dir.resolve("tls.crt"), pem("CERTIFICATE", leaf.getEncoded()));
    // PKCS#8: a JDK EC key in the traditional form loses its curve (see STACK.md)
    Files.writeString(
        dir.resolve("tls.key"), pem("PRIVATE KEY", leafKeys.getPrivate().getEncoded()));
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
