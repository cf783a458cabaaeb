package io.meshinjector.certs;

/** A certificate could not be generated, read or written; the message says which and why. */
public class CertsException extends RuntimeException {
  public CertsException(String message) {
    super(message);
  }

  public CertsException(String message, Throwable cause) {
    super(message, cause);
  }
}
