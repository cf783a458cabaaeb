package io.meshinjector.engine.probe;

/**
 * A host file whose text does not parse. Checked, like a read failure on the probe's edge: the
 * caller decides which verdict the gap makes {@code unknown}.
 */
public final class MalformedHostFile extends Exception {
  public MalformedHostFile(String message) {
    super(message);
  }
}
