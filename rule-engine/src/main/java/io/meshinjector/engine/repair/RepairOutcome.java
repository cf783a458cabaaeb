package io.meshinjector.engine.repair;

/**
 * What became of one broken pod: the {@code outcome} label of {@code mesh_injector_repairs_total}
 * and the Event's reason.
 */
public enum RepairOutcome {
  /** Deleted with a UID precondition; its controller recreates it. */
  REPLACED("replaced", "MeshRedirectRepaired"),
  /** Repair mode {@code report}: the Event only. */
  REPORTED("reported", "MeshRedirectBroken"),
  /** No controller owns the pod: nothing would recreate it, so it is not deleted. */
  BARE_POD("bare-pod", "MeshRedirectBroken"),
  /** The node's deletions of the last minute reached the limit; tried again later. */
  RATE_LIMITED("rate-limited", "MeshRedirectBroken"),
  /**
   * A pod of the same controller failed the same way here within the backoff: the node is the
   * cause.
   */
  BACKOFF("backoff", "MeshRedirectBrokenOnNode"),
  /** The delete was refused or failed (the Event and the log say why); tried again later. */
  FAILED("failed", "MeshRedirectRepairFailed"),
  /** The pod was gone or replaced before the delete (its UID no longer matched). */
  GONE("gone", "MeshRedirectRepaired");

  private final String id;
  private final String reason;

  RepairOutcome(String id, String reason) {
    this.id = id;
    this.reason = reason;
  }

  public String id() {
    return id;
  }

  /** The Event's reason. */
  public String reason() {
    return reason;
  }
}
