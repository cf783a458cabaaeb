package io.meshinjector.certs;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Objects;

/** A CA certificate with the key that signs for it. */
public record CertificateAuthority(X509Certificate certificate, PrivateKey privateKey) {
  public CertificateAuthority {
    Objects.requireNonNull(certificate, "certificate");
    Objects.requireNonNull(privateKey, "privateKey");
  }

  public String privateKeyPem() {
    return Pem.privateKey(privateKey);
  }

  @Override
  public String toString() {
    return "CertificateAuthority[" + certificate.getSubjectX500Principal().getName() + "]";
  }
}
