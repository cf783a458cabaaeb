package io.meshinjector.webhook.revisions;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** CA bundles as webhook configurations hold them: base64 of concatenated PEM certificates. */
final class CaBundles {
  private static final Pattern CERT =
      Pattern.compile("-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----");

  private CaBundles() {}

  /** Both bundles' certificates, each once, {@code first}'s first; null when both are empty. */
  static String union(String first, String second) {
    Set<String> certs = new LinkedHashSet<>();
    certs.addAll(certificates(first));
    certs.addAll(certificates(second));
    if (certs.isEmpty()) {
      return first;
    }
    String pem = String.join("\n", certs) + "\n";
    return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII));
  }

  private static Set<String> certificates(String base64) {
    Set<String> out = new LinkedHashSet<>();
    if (base64 == null || base64.isEmpty()) {
      return out;
    }
    String pem = new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.US_ASCII);
    Matcher m = CERT.matcher(pem);
    while (m.find()) {
      out.add(m.group().replaceAll("\\r", ""));
    }
    return out;
  }
}
