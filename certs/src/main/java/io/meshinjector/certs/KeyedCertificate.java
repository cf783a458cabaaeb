package io.meshinjector.certs;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Objects;

/** A leaf certificate and its private key. */
public record KeyedCertificate(X509Certificate certificate, PrivateKey privateKey) {
  public KeyedCertificate {
    Objects.requireNonNull(certificate, "certificate");
    Objects.requireNonNull(privateKey, "privateKey");
  }
}
