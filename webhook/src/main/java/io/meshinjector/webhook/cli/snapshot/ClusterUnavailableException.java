package io.meshinjector.webhook.cli.snapshot;

/** No cluster to read, or one that cannot be read; the message is the one line the user sees. */
public final class ClusterUnavailableException extends RuntimeException {
  ClusterUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
