package io.meshinjector.webhook.cli;

import io.meshinjector.certs.CertDirectory;
import io.meshinjector.certs.CertificateSet;
import io.meshinjector.certs.EnsureResult;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.SubjectNames;
import io.meshinjector.certs.WriteResult;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The seam to the certs module: writing a CA and serving certificate set, and making sure a {@code
 * --tls-dir} holds one.
 */
final class CertificateFiles {
  static final String CA_CRT = CertificateSet.CA_CRT;
  static final String TLS_CRT = CertificateSet.TLS_CRT;
  static final String TLS_KEY = CertificateSet.TLS_KEY;

  private CertificateFiles() {}

  /** {@code certs}: writes ca.crt, tls.crt and tls.key unless a valid set is there already. */
  static WriteResult write(
      Path out, List<String> dnsNames, int days, boolean force, KeyType keyType) {
    return CertDirectory.writeSet(out, dnsNames, days, force, keyType, Clock.systemUTC());
  }

  /**
   * {@code serve --tls-dir}: generates a self-signed set when the folder holds neither tls.crt nor
   * tls.key; a set that is there is left alone, since it may be a mounted Secret.
   */
  static EnsureResult ensure(Path dir, List<String> names, int days) {
    return new CertDirectory(dir)
        .ensure(SubjectNames.of(names), Duration.ofDays(days), KeyType.defaultType());
  }
}
