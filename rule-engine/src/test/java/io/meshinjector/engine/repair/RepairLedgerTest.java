package io.meshinjector.engine.repair;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The ledger's rules: one Event per pod, the rate limit, the backoff, the modes. */
class RepairLedgerTest {
  static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");
  static final Breakage.Owner RS = new Breakage.Owner("ReplicaSet", "web-abc", "rs-uid");
  static final Breakage.Owner JOB = new Breakage.Owner("Job", "batch", "job-uid");
  static final RepairSettings REPAIR =
      new RepairSettings(RepairMode.REPAIR, 2, Duration.ofMinutes(10));

  static Breakage broken(String uid, Breakage.Owner owner) {
    return new Breakage(
        "shop",
        "pod-" + uid,
        uid,
        "node-a",
        Flavour.LINKERD,
        "linkerd-network-validator",
        95,
        "no redirect",
        owner);
  }

  @Test
  void aControlledPodIsReplacedOnceAndItsLaterUpdatesAreQuiet() {
    RepairLedger.Step s = RepairLedger.empty().decide(broken("p1", RS), REPAIR, T0);
    assertThat(s.action()).isInstanceOf(RepairAction.Replace.class);
    assertThat(((RepairAction.Replace) s.action()).event())
        .contains(
            "linkerd-network-validator exited 95 (no redirect)", "node-a", "ReplicaSet/web-abc");
    RepairLedger.Step again = s.ledger().decide(broken("p1", RS), REPAIR, T0.plusSeconds(5));
    assertThat(again.action()).isInstanceOf(RepairAction.Quiet.class);
  }

  @Test
  void aJobsPodIsReplacedToo() {
    assertThat(RepairLedger.empty().decide(broken("j1", JOB), REPAIR, T0).action())
        .isInstanceOf(RepairAction.Replace.class);
  }

  @Test
  void aBarePodIsReportedNotDeleted() {
    RepairLedger.Step s = RepairLedger.empty().decide(broken("bare", null), REPAIR, T0);
    assertThat(s.action())
        .isInstanceOfSatisfying(
            RepairAction.Report.class,
            r -> {
              assertThat(r.outcome()).isEqualTo(RepairOutcome.BARE_POD);
              assertThat(r.event()).contains("reported, not deleted");
            });
    assertThat(s.ledger().deletions()).isEmpty();
  }

  @Test
  void reportModeChangesNothingAndReportsEachPodOnce() {
    RepairSettings report = new RepairSettings(RepairMode.REPORT, 2, Duration.ofMinutes(10));
    RepairLedger.Step s = RepairLedger.empty().decide(broken("p1", RS), report, T0);
    assertThat(s.action())
        .isInstanceOfSatisfying(
            RepairAction.Report.class,
            r -> assertThat(r.outcome()).isEqualTo(RepairOutcome.REPORTED));
    assertThat(s.ledger().deletions()).isEmpty();
    assertThat(s.ledger().decide(broken("p1", RS), report, T0.plusSeconds(30)).action())
        .isInstanceOf(RepairAction.Quiet.class);
  }

  @Test
  void offDoesNothing() {
    RepairSettings off = new RepairSettings(RepairMode.OFF, 2, Duration.ofMinutes(10));
    assertThat(RepairLedger.empty().decide(broken("p1", RS), off, T0).action())
        .isInstanceOf(RepairAction.Quiet.class);
  }

  @Test
  void theRateLimitHoldsPerMinuteThenLetsThePodGo() {
    RepairLedger l = RepairLedger.empty();
    for (int i = 0; i < 2; i++) {
      RepairLedger.Step s =
          l.decide(
              broken("p" + i, new Breakage.Owner("ReplicaSet", "rs" + i, "rs" + i)), REPAIR, T0);
      assertThat(s.action()).isInstanceOf(RepairAction.Replace.class);
      l = s.ledger();
    }
    Breakage third = broken("p3", new Breakage.Owner("ReplicaSet", "rs3", "rs3"));
    RepairLedger.Step limited = l.decide(third, REPAIR, T0.plusSeconds(10));
    assertThat(limited.action())
        .isInstanceOfSatisfying(
            RepairAction.Report.class,
            r -> {
              assertThat(r.outcome()).isEqualTo(RepairOutcome.RATE_LIMITED);
              assertThat(r.event()).contains("limit is 2");
            });
    // reported once while it waits
    RepairLedger.Step waiting = limited.ledger().decide(third, REPAIR, T0.plusSeconds(30));
    assertThat(waiting.action()).isInstanceOf(RepairAction.Quiet.class);
    // the minute after the first two deletions has passed
    assertThat(waiting.ledger().decide(third, REPAIR, T0.plusSeconds(61)).action())
        .isInstanceOf(RepairAction.Replace.class);
  }

  @Test
  void aReplacementFailingTheSameWayWithinTheBackoffIsReportedThenReplacedAfterIt() {
    RepairLedger l =
        RepairLedger.empty().decide(broken("p1", RS), REPAIR, T0).ledger().forget("p1");
    Breakage replacement = broken("p2", RS);
    RepairLedger.Step s = l.decide(replacement, REPAIR, T0.plusSeconds(90));
    assertThat(s.action())
        .isInstanceOfSatisfying(
            RepairAction.Report.class,
            r -> {
              assertThat(r.outcome()).isEqualTo(RepairOutcome.BACKOFF);
              assertThat(r.event()).contains("90s ago", "node's redirect path is the problem");
            });
    assertThat(s.ledger().decide(replacement, REPAIR, T0.plusSeconds(300)).action())
        .isInstanceOf(RepairAction.Quiet.class);
    assertThat(
            s.ledger()
                .decide(replacement, REPAIR, T0.plus(Duration.ofMinutes(10)).plusSeconds(1))
                .action())
        .isInstanceOf(RepairAction.Replace.class);
  }

  @Test
  void theBackoffIsPerControllerAndContainer() {
    RepairLedger l = RepairLedger.empty().decide(broken("p1", RS), REPAIR, T0).ledger();
    Breakage otherContainer =
        new Breakage("shop", "p2", "p2", "node-a", Flavour.LINKERD, "linkerd-init", 1, "", RS);
    assertThat(l.decide(otherContainer, REPAIR, T0.plusSeconds(5)).action())
        .isInstanceOf(RepairAction.Replace.class);
    assertThat(l.decide(broken("j1", JOB), REPAIR, T0.plusSeconds(5)).action())
        .isInstanceOf(RepairAction.Replace.class);
  }

  @Test
  void aFailedDeleteIsTriedAgainButStillCountsAgainstTheMinute() {
    Breakage b = broken("p1", RS);
    RepairLedger l = RepairLedger.empty().decide(b, REPAIR, T0).ledger().failed(b);
    assertThat(l.deletions()).hasSize(1);
    assertThat(l.decide(b, REPAIR, T0.plusSeconds(1)).action())
        .isInstanceOf(RepairAction.Replace.class);
  }

  @Test
  void entriesOlderThanTheirWindowsAreDropped() {
    RepairLedger l =
        RepairLedger.empty().decide(broken("p1", RS), REPAIR, T0).ledger().forget("p1");
    RepairLedger later =
        l.decide(broken("x", JOB), REPAIR, T0.plus(Duration.ofMinutes(11))).ledger();
    assertThat(later.repaired()).containsOnlyKeys(broken("x", JOB).sameFailureKey());
    assertThat(later.deletions()).hasSize(1);
  }

  @Test
  void settingsRefuseNonsense() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new RepairSettings(RepairMode.REPAIR, 0, Duration.ZERO))
        .hasMessageContaining("at least 1");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> RepairMode.parse("fix"))
        .hasMessageContaining("off, report, repair");
  }
}
