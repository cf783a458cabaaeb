package io.meshinjector.engine.repair;

/** What the repair does about one pod, decided by {@link RepairLedger#decide}. */
public sealed interface RepairAction {
  /** Delete the pod with a UID precondition and record {@code event}. */
  record Replace(Breakage breakage, String event) implements RepairAction {}

  /** Change nothing; record {@code event} with the outcome's reason and count it. */
  record Report(Breakage breakage, RepairOutcome outcome, String event) implements RepairAction {}

  /**
   * Nothing to do or say: repair is off, the pod was already handled (one Event per pod, not one
   * per status update), or it is still rate-limited or backed off and was reported as such already.
   */
  record Quiet() implements RepairAction {}
}
