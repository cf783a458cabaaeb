package io.meshinjector.engine.decision;

/** Why a pod is refused; the code is also a metric label. */
public enum RefusalReason {
  INVALID_ANNOTATION("invalid-annotation"),
  NO_VIABLE_PATH("no-viable-path"),
  MIXED_NODES("mixed-nodes"),
  /** The pod asks for the init path where Pod Security forbids NET_ADMIN/NET_RAW. */
  POD_SECURITY("pod-security");

  private final String code;

  RefusalReason(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  @Override
  public String toString() {
    return code;
  }
}
