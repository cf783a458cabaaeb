package io.meshinjector.certs;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a server needs and what its clients trust: {@code ca.crt} (one CA, or two during a
 * rollover), {@code tls.crt} and {@code tls.key}. The file and Secret key names are those of a
 * Kubernetes TLS Secret as cert-manager writes it.
 */
public record CertificateSet(
    List<X509Certificate> caCertificates, X509Certificate certificate, PrivateKey privateKey) {

  public static final String CA_CRT = "ca.crt";
  public static final String TLS_CRT = "tls.crt";
  public static final String TLS_KEY = "tls.key";

  public CertificateSet {
    caCertificates = List.copyOf(caCertificates);
    Objects.requireNonNull(certificate, "certificate");
    Objects.requireNonNull(privateKey, "privateKey");
  }

  public static CertificateSet fromPem(String caCrt, String tlsCrt, String tlsKey) {
    return new CertificateSet(
        caCrt == null || caCrt.isBlank() ? List.of() : Pem.readCertificates(caCrt),
        Pem.readCertificate(tlsCrt),
        Pem.readPrivateKey(tlsKey));
  }

  public String caPem() {
    return Pem.certificates(caCertificates);
  }

  public String certificatePem() {
    return Pem.certificate(certificate);
  }

  /** Always PKCS#8. */
  public String privateKeyPem() {
    return Pem.privateKey(privateKey);
  }

  /** Base64 of {@link #caPem()}, ready for a webhook configuration's {@code caBundle}. */
  public String caBundleBase64() {
    return CaBundle.base64(caCertificates);
  }

  public Instant notAfter() {
    return certificate.getNotAfter().toInstant();
  }

  public CertificateSet withCaCertificates(List<X509Certificate> cas) {
    return new CertificateSet(cas, certificate, privateKey);
  }

  @Override
  public String toString() {
    return "CertificateSet[cas="
        + caCertificates.size()
        + ", subject="
        + certificate.getSubjectX500Principal().getName()
        + ", notAfter="
        + notAfter()
        + "]";
  }
}
