package io.meshinjector.engine.repair;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node's repair memory, as an immutable value: the deletions of the last minute (the rate
 * limit), the last repair per controller and container (the backoff against loops), and the pods
 * already handled (one Event per pod and outcome). {@link #decide} returns the action and the next
 * ledger; the caller keeps the ledger, so every rule here is a table test without a cluster or a
 * clock.
 *
 * <p>Its size is bounded by the node: the pods bound to it and the controllers that own them, and
 * entries older than the minute or the backoff are dropped on each decision.
 */
public record RepairLedger(
    List<Instant> deletions, Map<String, Instant> repaired, Map<String, RepairOutcome> handled) {
  private static final Duration WINDOW = Duration.ofMinutes(1);

  public RepairLedger {
    deletions = List.copyOf(deletions);
    repaired = Map.copyOf(repaired);
    handled = Map.copyOf(handled);
  }

  public static RepairLedger empty() {
    return new RepairLedger(List.of(), Map.of(), Map.of());
  }

  /** The action for a broken pod, and the ledger after it. */
  public record Step(RepairAction action, RepairLedger ledger) {}

  public Step decide(Breakage b, RepairSettings settings, Instant now) {
    Objects.requireNonNull(b, "breakage");
    RepairLedger l = pruned(settings, now);
    RepairOutcome before = l.handled.get(b.podUid());
    if (settings.mode() == RepairMode.OFF) {
      return new Step(new RepairAction.Quiet(), l);
    }
    // a rate-limited or backed-off pod is looked at again at each update: its minute or its
    // backoff may have passed; every other outcome is final for that pod
    boolean retry = before == RepairOutcome.RATE_LIMITED || before == RepairOutcome.BACKOFF;
    if (before != null && !retry) {
      return new Step(new RepairAction.Quiet(), l);
    }
    String head =
        b.what()
            + " on node "
            + b.node()
            + ": the pod's traffic redirect is not in place, so it cannot start.";
    if (b.owner() == null) {
      return l.report(
          b,
          RepairOutcome.BARE_POD,
          head
              + " No controller owns the pod and nothing would recreate it: reported, not deleted."
              + " Recreate it once the node's path works (mesh-injector check).");
    }
    if (settings.mode() == RepairMode.REPORT) {
      return l.report(
          b,
          RepairOutcome.REPORTED,
          head
              + " Repair mode is report: nothing was changed. Deleting the pod has "
              + b.owner()
              + " recreate it, admitted again with the node's current facts.");
    }
    Instant last = l.repaired.get(b.sameFailureKey());
    if (last != null && now.isBefore(last.plus(settings.backoff()))) {
      if (before == RepairOutcome.BACKOFF) {
        // still within the backoff
        return new Step(new RepairAction.Quiet(), l);
      }
      return l.report(
          b,
          RepairOutcome.BACKOFF,
          head
              + " A pod of "
              + b.owner()
              + " failed the same way on this node "
              + Duration.between(last, now).toSeconds()
              + "s ago and was replaced: replacing it again within the backoff ("
              + settings.backoff().toSeconds()
              + "s) would loop. The node's redirect path is the problem: see mesh-injector"
              + " check and the node's NodeCapability.");
    }
    if (l.deletions.size() >= settings.perNodePerMinute()) {
      if (before == RepairOutcome.RATE_LIMITED) {
        // still rate-limited
        return new Step(new RepairAction.Quiet(), l);
      }
      return l.report(
          b,
          RepairOutcome.RATE_LIMITED,
          head
              + " "
              + l.deletions.size()
              + " pods were already replaced on this node in the last minute (the limit is "
              + settings.perNodePerMinute()
              + "): this one is replaced once the minute allows.");
    }
    List<Instant> deletions = new ArrayList<>(l.deletions);
    deletions.add(now);
    Map<String, Instant> repaired = new HashMap<>(l.repaired);
    repaired.put(b.sameFailureKey(), now);
    Map<String, RepairOutcome> handled = new HashMap<>(l.handled);
    handled.put(b.podUid(), RepairOutcome.REPLACED);
    return new Step(
        new RepairAction.Replace(
            b,
            head
                + " Deleted it (UID precondition) so that "
                + b.owner()
                + " recreates it and the webhook admits the new pod with the node's current"
                + " facts."),
        new RepairLedger(deletions, repaired, handled));
  }

  /**
   * After a delete that failed (refused, or the API server unreachable): the pod may be tried again
   * at its next update; the deletion still counts against the minute, so a refusing API server is
   * not hammered.
   */
  public RepairLedger failed(Breakage b) {
    Map<String, Instant> repaired = new HashMap<>(this.repaired);
    repaired.remove(b.sameFailureKey());
    Map<String, RepairOutcome> handled = new HashMap<>(this.handled);
    handled.remove(b.podUid());
    return new RepairLedger(deletions, repaired, handled);
  }

  /** A pod gone from the node: its one-Event mark goes; its controller's backoff stays. */
  public RepairLedger forget(String podUid) {
    if (!handled.containsKey(podUid)) {
      return this;
    }
    Map<String, RepairOutcome> h = new HashMap<>(handled);
    h.remove(podUid);
    return new RepairLedger(deletions, repaired, h);
  }

  private Step report(Breakage b, RepairOutcome outcome, String event) {
    Map<String, RepairOutcome> h = new HashMap<>(handled);
    h.put(b.podUid(), outcome);
    return new Step(
        new RepairAction.Report(b, outcome, event), new RepairLedger(deletions, repaired, h));
  }

  private RepairLedger pruned(RepairSettings settings, Instant now) {
    Instant windowStart = now.minus(WINDOW);
    List<Instant> d = deletions.stream().filter(t -> t.isAfter(windowStart)).toList();
    Instant backoffStart = now.minus(settings.backoff());
    Map<String, Instant> r = new HashMap<>();
    repaired.forEach(
        (k, t) -> {
          if (t.isAfter(backoffStart)) {
            r.put(k, t);
          }
        });
    if (d.size() == deletions.size() && r.size() == repaired.size()) {
      return this;
    }
    return new RepairLedger(d, r, handled);
  }
}
