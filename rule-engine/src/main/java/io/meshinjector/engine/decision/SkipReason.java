package io.meshinjector.engine.decision;

/** Why a pod is admitted without injection; the code is also a metric label. */
public enum SkipReason {
  INJECTION_DISABLED("injection-disabled"),
  NOT_ENABLED("not-enabled"),
  EXCLUDED_NAMESPACE("excluded-namespace"),
  HOST_NETWORK("host-network"),
  ALREADY_INJECTED("already-injected"),
  OTHER_MESH("other-mesh"),
  NO_VIABLE_PATH("no-viable-path"),
  /**
   * The pod runs to completion, no node it may run on runs native sidecars, and {@code
   * policy.runToCompletion} is {@code skip}.
   */
  RUN_TO_COMPLETION("run-to-completion"),
  /**
   * The pod sets {@code spec.os.name: windows}, or every node it may land on runs Windows: the
   * mesh's proxy and init containers are Linux programs.
   */
  WINDOWS("windows");

  private final String code;

  SkipReason(String code) {
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
