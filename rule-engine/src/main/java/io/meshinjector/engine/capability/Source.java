package io.meshinjector.engine.capability;

/** Where a verdict came from, highest precedence first. */
public enum Source {
  OVERRIDE("override"),
  PROBE("probe"),
  LIVE("live"),
  INFERENCE("inference"),
  NONE("none");

  private final String id;

  Source(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  @Override
  public String toString() {
    return id;
  }
}
