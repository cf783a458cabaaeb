package io.meshinjector.certs;

import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;

/**
 * The {@code caBundle} of a webhook configuration: concatenated PEM CA certificates. During a CA
 * rollover it holds the old and the new CA, so certs from either verify.
 */
public final class CaBundle {
  private CaBundle() {}

  public static String pem(List<X509Certificate> cas) {
    return Pem.certificates(cas);
  }

  /** Base64 of the PEM text: the form a {@code caBundle} field takes in YAML/JSON. */
  public static String base64(List<X509Certificate> cas) {
    return Base64.getEncoder().encodeToString(pem(cas).getBytes(StandardCharsets.US_ASCII));
  }

  public static List<X509Certificate> fromPem(String pem) {
    return Pem.readCertificates(pem);
  }

  public static List<X509Certificate> fromBase64(String base64) {
    return fromPem(new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.US_ASCII));
  }
}
