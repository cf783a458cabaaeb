package io.meshinjector.webhook.probe;

/**
 * A host file the probe could not read. Checked on purpose: every reader has to decide whether the
 * gap makes its verdict {@code unknown} or is a normal absence (e.g. no CRI-O on the node).
 */
final class HostReadException extends Exception {
  private final boolean missing;

  HostReadException(String message, boolean missing) {
    super(message);
    this.missing = missing;
  }

  /** True when the path does not exist (as opposed to existing but unreadable or malformed). */
  boolean missing() {
    return missing;
  }
}
