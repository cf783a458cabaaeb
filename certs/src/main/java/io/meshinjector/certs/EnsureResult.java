package io.meshinjector.certs;

/** What {@link CertDirectory#ensure} found or made. */
public sealed interface EnsureResult {
  CertificateSet set();

  /** The folder held no set, so a self-signed one was generated and written. */
  record Generated(CertificateSet set) implements EnsureResult {}

  /**
   * The folder already held tls.crt and tls.key; they are left alone, valid or not, because the
   * folder may be a mounted Secret that something else manages.
   */
  record Existing(CertificateSet set, Validation validation) implements EnsureResult {}
}
