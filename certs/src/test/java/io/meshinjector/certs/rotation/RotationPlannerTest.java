package io.meshinjector.certs.rotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.CertificateSet;
import io.meshinjector.certs.CertificateValidator;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.MutableClock;
import io.meshinjector.certs.SubjectNames;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RotationPlannerTest {
  private static final Duration OVERLAP = Duration.ofMinutes(10);

  private final MutableClock clock = MutableClock.at("2026-11-22T10:00:00Z");
  private final RotationPolicy policy =
      new RotationPolicy(
          Duration.ofDays(300),
          Duration.ofDays(30),
          RotationPolicy.TWO_THIRDS,
          OVERLAP,
          KeyType.EC_P256);
  // as the webhook's TlsSettings.servingNames() gives them
  private final SubjectNames names =
      SubjectNames.of(SubjectNames.serviceNames("mesh-injector", "mesh"));
  private final RotationPlanner planner = new RotationPlanner(clock, policy, names);

  @Test
  void bootstrapsFromNothingAndThenKeepsUntilTwoThirds() {
    assertThat(planner.plan(RotationState.empty())).isInstanceOf(RotationAction.Bootstrap.class);

    var outcome = planner.reconcile(RotationState.empty());

    RotationState state = outcome.state();
    assertThat(outcome.applied()).singleElement().isInstanceOf(RotationAction.Bootstrap.class);
    assertThat(new CertificateValidator(clock).validate(state.set(), names).isValid()).isTrue();
    assertThat(state.caBundle()).containsExactly(state.signer().certificate());
    assertThat(outcome.next().reviewAt())
        .isEqualTo(
            policy.renewAt(state.set().certificate(), policy.servingValidity(), clock.instant()));
  }

  @Test
  void servingCertIsKeptBeforeTwoThirdsAndRenewedFromThen() {
    RotationState state = planner.reconcile(RotationState.empty()).state();
    X509Certificate serving = state.set().certificate();
    Instant renewAt = policy.renewAt(serving, policy.servingValidity(), clock.instant());
    // two thirds of the 30 days after it was issued (its notBefore is backdated)
    Instant issued = serving.getNotBefore().toInstant().plus(CertificateIssuer.BACKDATE);
    assertThat(Duration.between(issued, renewAt)).isEqualTo(Duration.ofDays(20));

    clock.set(renewAt.minusSeconds(1));
    assertThat(planner.plan(state)).isInstanceOf(RotationAction.Keep.class);

    clock.set(renewAt);
    RotationAction action = planner.plan(state);
    assertThat(action).isInstanceOf(RotationAction.RenewServing.class);
    assertThat(action.reason()).contains("renewal time");

    RotationState renewed = planner.apply(action, state);
    assertThat(renewed.set().certificate()).isNotEqualTo(serving);
    assertThat(renewed.caBundle()).isEqualTo(state.caBundle());
    assertThat(renewed.signer()).isEqualTo(state.signer());
    assertThat(renewed.set().notAfter()).isEqualTo(renewAt.plus(Duration.ofDays(30)));
    assertThat(planner.plan(renewed)).isInstanceOf(RotationAction.Keep.class);
  }

  /**
   * Helm's {@code genSignedCert} sets notBefore to the moment it runs, with no backdate: the
   * chart's first set must be renewed on the configured schedule from that moment, not five minutes
   * later as if it had been backdated like the leader's own.
   */
  @Test
  void theChartsFirstSetWhichHelmDoesNotBackdateIsRenewedOnTheConfiguredSchedule() {
    Instant made = clock.instant();
    // an issuer whose clock is one backdate ahead writes notBefore = made, as Helm does
    MutableClock helmClock = new MutableClock(made.plus(CertificateIssuer.BACKDATE));
    RotationState helmSet =
        new RotationPlanner(helmClock, policy, names).reconcile(RotationState.empty()).state();
    assertThat(helmSet.set().certificate().getNotBefore().toInstant()).isEqualTo(made);
    RotationPolicy minutes =
        new RotationPolicy(
            Duration.ofHours(2),
            Duration.ofMinutes(3),
            1.0 / 3,
            Duration.ofMinutes(1),
            KeyType.EC_P256);
    RotationPlanner shortLived = new RotationPlanner(clock, minutes, names);

    // three minutes' lifetime renewed two minutes before its end: one minute after it was made
    assertThat(minutes.renewAt(helmSet.set().certificate(), minutes.servingValidity(), made))
        .isEqualTo(made.plus(Duration.ofMinutes(1)));
    clock.set(made.plus(Duration.ofMinutes(1)).minusSeconds(1));
    assertThat(shortLived.plan(helmSet)).isInstanceOf(RotationAction.Keep.class);
    clock.set(made.plus(Duration.ofMinutes(1)).plusSeconds(30));
    assertThat(shortLived.plan(helmSet)).isInstanceOf(RotationAction.RenewServing.class);
  }

  @Test
  void aSetLongerLivedThanTheConfiguredLifetimesIsRenewedOnTheConfiguredSchedule() {
    // the chart's first set lasts whole days (Helm counts days); the operator asked for minutes
    RotationState dayLong = planner.reconcile(RotationState.empty()).state();
    RotationPolicy minutes =
        new RotationPolicy(
            Duration.ofHours(2),
            Duration.ofMinutes(4),
            0.5,
            Duration.ofMinutes(1),
            KeyType.EC_P256);
    RotationPlanner shortLived = new RotationPlanner(clock, minutes, names);
    // issued at the clock's time (its notBefore is backdated): due 2 minutes later
    Instant issued = clock.instant();
    assertThat(
            minutes.renewAt(
                dayLong.set().certificate(), minutes.servingValidity(), clock.instant()))
        .isEqualTo(issued.plus(Duration.ofMinutes(2)));

    clock.set(issued.plus(Duration.ofMinutes(2)).minusSeconds(1));
    assertThat(shortLived.plan(dayLong)).isInstanceOf(RotationAction.Keep.class);
    clock.set(issued.plus(Duration.ofMinutes(2)));
    RotationAction action = shortLived.plan(dayLong);
    assertThat(action).isInstanceOf(RotationAction.RenewServing.class);
    RotationState renewed = shortLived.apply(action, dayLong);
    assertThat(renewed.set().notAfter()).isEqualTo(clock.instant().plus(Duration.ofMinutes(4)));
    // the renewed one settles: due 2 minutes after its own issue, not at once (the backdate)
    assertThat(shortLived.plan(renewed)).isInstanceOf(RotationAction.Keep.class);
    assertThat(
            minutes.renewAt(
                renewed.set().certificate(), minutes.servingValidity(), clock.instant()))
        .isEqualTo(clock.instant().plus(Duration.ofMinutes(2)));
    // the 300-day CA is due at half of the configured 2 hours, not at half of its own lifetime
    X509Certificate ca = renewed.signer().certificate();
    assertThat(minutes.renewAt(ca, minutes.caValidity(), clock.instant()))
        .isEqualTo(
            ca.getNotBefore()
                .toInstant()
                .plus(CertificateIssuer.BACKDATE)
                .plus(Duration.ofHours(1)));
  }

  @Test
  void caRolloverPublishesBothCasAndDropsTheOldOneOnlyOnceNoServingCertFromItRemains() {
    RotationState state = planner.reconcile(RotationState.empty()).state();
    X509Certificate oldCa = state.signer().certificate();
    // keep the serving cert fresh up to the CA's renewal time, as the loop would
    clock.set(
        policy.renewAt(oldCa, policy.caValidity(), clock.instant()).minus(Duration.ofDays(1)));
    state = planner.apply(planner.plan(state), state);
    X509Certificate oldServing = state.set().certificate();
    clock.set(policy.renewAt(oldCa, policy.caValidity(), clock.instant()));

    // 1. a new CA joins the bundle; the serving cert stays
    RotationAction rollover = planner.plan(state);
    assertThat(rollover).isInstanceOf(RotationAction.RolloverCa.class);
    assertThat(rollover.reason()).contains("renewal time");
    state = planner.apply(rollover, state);
    X509Certificate newCa = state.signer().certificate();
    assertThat(newCa).isNotEqualTo(oldCa);
    assertThat(state.caBundle()).containsExactly(oldCa, newCa);
    assertThat(state.set().certificate()).isEqualTo(oldServing);
    assertPkixChains(oldServing, state.caBundle());

    // 2. the serving cert waits until clients have had the new bundle for the overlap
    RotationAction waiting = planner.plan(state);
    assertThat(waiting).isInstanceOf(RotationAction.Keep.class);
    Instant newCaPublished = clock.instant().plus(OVERLAP);
    assertThat(((RotationAction.Keep) waiting).reviewAt()).isEqualTo(newCaPublished);
    clock.set(newCaPublished);

    // 3. the serving cert is reissued from the new CA; both CAs still in the bundle
    RotationAction renew = planner.plan(state);
    assertThat(renew).isInstanceOf(RotationAction.RenewServing.class);
    assertThat(renew.reason()).contains("old CA");
    state = planner.apply(renew, state);
    X509Certificate newServing = state.set().certificate();
    assertThat(newServing.getIssuerX500Principal()).isEqualTo(newCa.getSubjectX500Principal());
    assertThat(state.caBundle()).containsExactly(oldCa, newCa);
    assertPkixChains(newServing, List.of(newCa));
    assertPkixChains(oldServing, state.caBundle());

    // 4. a replica may still serve the old cert during the overlap: the old CA stays
    RotationAction beforeRetire = planner.plan(state);
    assertThat(beforeRetire).isInstanceOf(RotationAction.Keep.class);
    Instant retireAt = clock.instant().plus(OVERLAP);
    assertThat(((RotationAction.Keep) beforeRetire).reviewAt()).isEqualTo(retireAt);
    clock.set(retireAt.minusSeconds(1));
    assertThat(planner.plan(state)).isInstanceOf(RotationAction.Keep.class);

    // 5. no serving cert from the old CA remains: it leaves the bundle
    clock.set(retireAt);
    RotationAction retire = planner.plan(state);
    assertThat(retire).isInstanceOf(RotationAction.RetireCa.class);
    assertThat(((RotationAction.RetireCa) retire).retired()).containsExactly(oldCa);
    state = planner.apply(retire, state);
    assertThat(state.caBundle()).containsExactly(newCa);
    assertThat(planner.plan(state)).isInstanceOf(RotationAction.Keep.class);
  }

  @Test
  void aSetWithoutItsCaKeyIsTakenOverByRollover() {
    CertificateSet foreign =
        new CertificateIssuer(clock).newSet(names, Duration.ofDays(30), KeyType.RSA_2048);
    RotationState state = new RotationState(foreign, null);

    RotationAction action = planner.plan(state);

    assertThat(action).isInstanceOf(RotationAction.RolloverCa.class);
    assertThat(action.reason()).isEqualTo("no CA key to sign with");
    var first = planner.reconcile(state);
    assertThat(first.state().caBundle()).hasSize(2).startsWith(foreign.caCertificates().get(0));
    assertThat(first.state().set().certificate()).isEqualTo(foreign.certificate());
    clock.advance(OVERLAP);
    var second = planner.reconcile(first.state());
    assertThat(second.applied()).singleElement().isInstanceOf(RotationAction.RenewServing.class);
    clock.advance(OVERLAP);
    var third = planner.reconcile(second.state());
    assertThat(third.applied()).singleElement().isInstanceOf(RotationAction.RetireCa.class);
    assertThat(third.state().caBundle()).containsExactly(third.state().signer().certificate());
  }

  static java.util.stream.Stream<String> damagedCaKeys() {
    return java.util.stream.Stream.of(
        "-----BEGIN PRIVATE KEY-----\nnot*base64!\n-----END PRIVATE KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\nAAECAwQFBgcICQ==\n-----END PRIVATE KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n",
        "garbage without any PEM block");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("damagedCaKeys")
  void aDamagedCaKeyRollsTheCaOverAndKeepsTheOldCaInTheBundle(String damaged) {
    RotationState healthy = planner.reconcile(RotationState.empty()).state();
    X509Certificate oldCa = healthy.signer().certificate();
    X509Certificate serving = healthy.set().certificate();
    var data = new java.util.HashMap<>(healthy.toData());
    data.put(RotationState.CA_KEY, damaged);

    RotationState read = RotationState.fromData(data);

    assertThat(read.signer()).isNull();
    assertThat(read.set().certificate()).isEqualTo(serving);
    assertThat(read.signerProblem()).startsWith("ca.key cannot be read: ");
    RotationAction action = planner.plan(read);
    assertThat(action).isInstanceOf(RotationAction.RolloverCa.class);
    assertThat(action.reason()).isEqualTo(read.signerProblem());

    var first = planner.reconcile(read);
    // the serving cert in use still chains, so API server calls keep working meanwhile
    assertThat(first.state().caBundle()).hasSize(2).startsWith(oldCa);
    assertThat(first.state().set().certificate()).isEqualTo(serving);
    RotationState reread = RotationState.fromData(first.state().toData());
    assertThat(reread.signer().certificate()).isEqualTo(first.state().signer().certificate());
    assertThat(reread.signer().certificate()).isNotEqualTo(oldCa);
    clock.advance(OVERLAP);
    var second = planner.reconcile(reread);
    assertThat(second.applied()).singleElement().isInstanceOf(RotationAction.RenewServing.class);
    assertPkixChains(second.state().set().certificate(), List.of(reread.signer().certificate()));
  }

  @Test
  void aCaKeyThatFitsNoCaSaysSo() {
    RotationState state = planner.reconcile(RotationState.empty()).state();
    var data = new java.util.HashMap<>(state.toData());
    data.put(
        RotationState.CA_KEY,
        new CertificateIssuer(clock)
            .newAuthority(Duration.ofDays(30), KeyType.EC_P256)
            .privateKeyPem());

    RotationState read = RotationState.fromData(data);

    assertThat(read.signer()).isNull();
    assertThat(planner.plan(read).reason()).isEqualTo("ca.key fits no CA in ca.crt");
  }

  @Test
  void anExpiredServingCertIsRenewedAtOnceFromTheCurrentCa() {
    RotationState state = planner.reconcile(RotationState.empty()).state();
    clock.advance(Duration.ofDays(31));

    RotationAction action = planner.plan(state);

    assertThat(action).isInstanceOf(RotationAction.RenewServing.class);
    assertThat(action.reason()).contains("expired");
  }

  @Test
  void aNewNameBringsANewServingCert() {
    RotationState state = planner.reconcile(RotationState.empty()).state();
    List<String> more = new ArrayList<>(names.all());
    more.add("injector.example.com");
    var renamed = new RotationPlanner(clock, policy, SubjectNames.of(more));

    RotationAction action = renamed.plan(state);

    assertThat(action).isInstanceOf(RotationAction.RenewServing.class);
    assertThat(action.reason()).contains("injector.example.com");
    assertThat(
            CertificateValidator.namesOf(renamed.apply(action, state).set().certificate())
                .dnsNames())
        .contains("injector.example.com");
  }

  @Test
  void anExpiredCaWithABrokenServingCertMeansStartingOver() {
    RotationState state = planner.reconcile(RotationState.empty()).state();
    clock.advance(Duration.ofDays(400));

    RotationAction action = planner.plan(state);

    assertThat(action).isInstanceOf(RotationAction.Bootstrap.class);
    RotationState fresh = planner.apply(action, state);
    assertThat(fresh.caBundle()).containsExactly(fresh.signer().certificate());
  }

  /**
   * Two CA lifetimes in one loop, as the webhook would run it: plan again at the Keep's review time
   * or after six hours. Replicas pick a new serving cert up only after a delay shorter than the
   * overlap, and clients use the bundle as last published; every cert that may be served at any
   * moment must chain to that bundle.
   */
  @Test
  void noServedCertIsEverOutsideThePublishedBundleOverTwoCaLifetimes() {
    Duration replicaDelay = Duration.ofMinutes(3);
    Duration clientDelay = Duration.ofMinutes(2);
    Instant end = clock.instant().plus(Duration.ofDays(650));
    RotationState state = RotationState.empty();
    List<Served> served = new ArrayList<>();
    java.util.Map<X509Certificate, Instant> published = new java.util.HashMap<>();
    List<RotationAction> all = new ArrayList<>();
    int checks = 0;
    while (clock.instant().isBefore(end)) {
      X509Certificate before = state.set() == null ? null : state.set().certificate();
      var outcome = planner.reconcile(state);
      Instant now = clock.instant();
      state = outcome.state();
      all.addAll(outcome.applied());
      for (X509Certificate ca : state.caBundle()) {
        published.putIfAbsent(ca, now);
      }
      if (!state.set().certificate().equals(before)) {
        X509Certificate cert = state.set().certificate();
        served.add(new Served(cert, now));
        boolean bootstrap =
            outcome.applied().stream().anyMatch(a -> a instanceof RotationAction.Bootstrap);
        if (!bootstrap) {
          // clients must have had the issuing CA for a while before the cert can reach them
          assertThat(published.get(state.signer().certificate()).plus(clientDelay))
              .as("CA published early enough for %s", cert.getSubjectX500Principal())
              .isBeforeOrEqualTo(now);
        }
      }
      // what a replica may serve now: the newest cert, and the one before it for a while
      for (int i = 0; i < served.size(); i++) {
        boolean newest = i == served.size() - 1;
        if (newest || now.isBefore(served.get(i + 1).since().plus(replicaDelay))) {
          assertPkixChains(served.get(i).certificate(), state.caBundle());
          checks++;
        }
      }
      assertThat(state.caBundle()).hasSizeLessThanOrEqualTo(2);
      Instant next = outcome.next().reviewAt();
      Instant cap = now.plus(Duration.ofHours(6));
      clock.set((next.isBefore(cap) ? next : cap).plusSeconds(1));
    }

    assertThat(all).filteredOn(a -> a instanceof RotationAction.Bootstrap).hasSize(1);
    assertThat(all).filteredOn(a -> a instanceof RotationAction.RolloverCa).hasSize(3);
    assertThat(all).filteredOn(a -> a instanceof RotationAction.RetireCa).hasSize(3);
    assertThat(all)
        .filteredOn(a -> a instanceof RotationAction.RenewServing)
        .hasSizeGreaterThan(30);
    assertThat(checks).isGreaterThan(2000);
  }

  @Test
  void stateSurvivesTheSecretDataFormWithTwoCas() {
    RotationState state = planner.reconcile(RotationState.empty()).state();
    clock.set(policy.renewAt(state.signer().certificate(), policy.caValidity(), clock.instant()));
    state = planner.reconcile(state).state();
    assertThat(state.caBundle()).hasSize(2);

    var data = state.toData();
    RotationState back = RotationState.fromData(data);

    assertThat(data).containsOnlyKeys("ca.crt", "tls.crt", "tls.key", "ca.key");
    assertThat(data.get("ca.key")).startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(back.caBundle()).isEqualTo(state.caBundle());
    assertThat(back.signer().certificate()).isEqualTo(state.signer().certificate());
    assertThat(back.set().certificate()).isEqualTo(state.set().certificate());
    assertThat(planner.plan(back)).isEqualTo(planner.plan(state));
    assertThat(RotationState.fromData(java.util.Map.of())).isEqualTo(RotationState.empty());
  }

  @Test
  void policyRefusesAnOverlapLongerThanTheRenewalMargin() {
    assertThatThrownBy(
            () ->
                new RotationPolicy(
                    Duration.ofDays(30),
                    Duration.ofDays(3),
                    RotationPolicy.TWO_THIRDS,
                    Duration.ofDays(1),
                    KeyType.EC_P256))
        .hasMessageContaining("overlap");
    assertThat(RotationPolicy.defaults().renewFraction()).isEqualTo(2.0 / 3.0);
  }

  private record Served(X509Certificate certificate, Instant since) {}

  private void assertPkixChains(X509Certificate leaf, List<X509Certificate> bundle) {
    assertThat(CertificateValidator.chainProblem(leaf, bundle, clock.instant()))
        .as("PKIX validation of %s against %s", leaf.getSubjectX500Principal(), bundle.size())
        .isNull();
  }
}
