package io.meshinjector.webhook.manifest;

/** An input file the CLI cannot use; the message names the file and what is wrong. */
public class ManifestException extends RuntimeException {
  public ManifestException(String message) {
    super(message);
  }
}
