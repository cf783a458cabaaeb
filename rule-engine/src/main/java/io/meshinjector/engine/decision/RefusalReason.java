package io.meshinjector.engine.decision;

/** Why a pod is refused; the code is also a metric label. */
public enum RefusalReason {
  /**
   * An annotation has a value outside its allowed set, or asks for a redirect path that {@code
   * policy.preference} does not offer.
   */
  INVALID_ANNOTATION("invalid-annotation"),
  NO_VIABLE_PATH("no-viable-path"),
  MIXED_NODES("mixed-nodes"),
  /**
   * Pod Security forbids the init path's NET_ADMIN/NET_RAW and no other path is left: the pod asks
   * for init, or {@code policy.preference} offers nothing else.
   */
  POD_SECURITY("pod-security"),
  /**
   * The pod runs to completion, no node it may run on runs native sidecars, and {@code
   * policy.runToCompletion} is {@code reject}.
   */
  RUN_TO_COMPLETION("run-to-completion");

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
