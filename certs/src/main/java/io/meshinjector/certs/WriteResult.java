package io.meshinjector.certs;

import java.nio.file.Path;

/** What {@link CertDirectory#write} did: the {@code certs} command prints {@link #message()}. */
public sealed interface WriteResult {
  String message();

  /**
   * The three files were written.
   *
   * @param replaced why the set that was there did not do, or null when there was none or {@code
   *     force} was given
   */
  record Written(Path directory, CertificateSet set, String replaced) implements WriteResult {
    @Override
    public String message() {
      return "wrote ca.crt, tls.crt and tls.key to "
          + directory
          + " for "
          + CertificateValidator.namesOf(set.certificate())
          + ", valid until "
          + set.notAfter()
          + (replaced == null
              ? ""
              : "; replaced the set there ("
                  + replaced
                  + "), with a new CA: give the new ca.crt to whatever trusted the old one");
    }
  }

  /** A valid set was already there, and {@code force} was not given. */
  record RefusedValid(Path directory, CertificateSet existing) implements WriteResult {
    @Override
    public String message() {
      return "refusing to overwrite the valid certificate set in "
          + directory
          + " (tls.crt for "
          + CertificateValidator.namesOf(existing.certificate())
          + ", valid until "
          + existing.notAfter()
          + "); pass --force to replace it";
    }
  }
}
