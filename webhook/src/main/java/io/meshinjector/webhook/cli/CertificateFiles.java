package io.meshinjector.webhook.cli;

import java.nio.file.Path;
import java.util.List;

/**
 * The seam to the certs module: writing a CA and serving certificate set, and making sure a {@code
 * --tls-dir} holds one.
 */
final class CertificateFiles {
  static final String CA_CRT = "ca.crt";
  static final String TLS_CRT = "tls.crt";
  static final String TLS_KEY = "tls.key";

  private CertificateFiles() {}

  /** {@code certs}: writes ca.crt, tls.crt and tls.key; false when a valid set is kept. */
  static boolean write(Path out, List<String> dnsNames, int days, boolean force) {
    throw new UnsupportedOperationException(
        "certificate generation is not part of this build yet; write tls.crt and tls.key"
            + " (PKCS#8 key) into "
            + out
            + " yourself");
  }

  /** {@code serve --tls-dir}: generates a self-signed set when the folder holds none. */
  static void ensure(Path dir, List<String> names, int days) {
    if (java.nio.file.Files.exists(dir.resolve(TLS_CRT))
        && java.nio.file.Files.exists(dir.resolve(TLS_KEY))) {
      return;
    }
    write(dir, names, days, false);
  }
}
