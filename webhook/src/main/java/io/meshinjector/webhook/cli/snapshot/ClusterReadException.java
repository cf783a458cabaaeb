package io.meshinjector.webhook.cli.snapshot;

/** A list the cluster view needs could not be read; the message names the list and the cause. */
public final class ClusterReadException extends RuntimeException {
  public ClusterReadException(String message, Throwable cause) {
    super(message, cause);
  }
}
