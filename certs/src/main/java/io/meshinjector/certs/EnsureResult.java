package io.meshinjector.certs;

/** What {@link CertDirectory#ensure} found or made. */
public sealed interface EnsureResult {
  /** The folder held no set, so a self-signed one was generated and written. */
  record Generated() implements EnsureResult {}

  /**
   * The folder already held tls.crt and tls.key; they are left alone, valid or not, because the
   * folder may be a mounted Secret that something else manages.
   *
   * @param validation what is wrong with them, if anything
   */
  record Existing(Validation validation) implements EnsureResult {}
}
