package io.meshinjector.engine.decision;

/** Where the proxy container goes. */
public enum ProxyPlacement {
  /** An init container with {@code restartPolicy: Always} (kubelet >= 1.29). */
  NATIVE_SIDECAR("native-sidecar"),
  /** The first regular container. */
  CONTAINER("container");

  private final String id;

  ProxyPlacement(String id) {
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
