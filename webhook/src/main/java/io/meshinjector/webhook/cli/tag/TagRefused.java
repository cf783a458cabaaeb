package io.meshinjector.webhook.cli.tag;

/**
 * A tag was not written: a precondition failed, or the tag changed between the read and the write.
 * The message is the one line the user sees; nothing in the cluster changed.
 */
public final class TagRefused extends RuntimeException {
  public TagRefused(String message) {
    super(message);
  }
}
