package io.meshinjector.engine.decision;

/** How a pod's traffic reaches the proxy. */
public enum Redirect {
  /** An iptables init container with NET_ADMIN/NET_RAW programs the redirect. */
  INIT("init"),
  /** The mesh CNI plugin programs the redirect; an unprivileged validator checks it. */
  CNI("cni");

  private final String id;

  Redirect(String id) {
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
