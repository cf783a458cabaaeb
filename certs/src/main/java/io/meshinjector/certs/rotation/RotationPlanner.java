package io.meshinjector.certs.rotation;

import io.meshinjector.certs.CertificateAuthority;
import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.CertificateSet;
import io.meshinjector.certs.CertificateValidator;
import io.meshinjector.certs.KeyedCertificate;
import io.meshinjector.certs.SubjectNames;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Decides the next step for a self-managed set and performs it. The order of the checks is the
 * order of urgency: a broken serving cert is fixed from the current CA first, a CA rollover comes
 * next, and no CA leaves the bundle while a serving cert from it may still be served.
 */
public final class RotationPlanner {
  private final Clock clock;
  private final RotationPolicy policy;
  private final SubjectNames names;

  public RotationPlanner(Clock clock, RotationPolicy policy, SubjectNames names) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.names = Objects.requireNonNull(names, "names");
  }

  public RotationAction plan(RotationState state) {
    Instant now = clock.instant();
    CertificateSet set = state.set();
    if (set == null) {
      return new RotationAction.Bootstrap("no certificate set yet");
    }
    X509Certificate serving = set.certificate();
    List<X509Certificate> bundle = set.caCertificates();
    String servingProblem = servingProblem(set, now);

    String signerProblem = signerProblem(state, bundle, now);
    if (signerProblem != null) {
      if (servingProblem == null) {
        return new RotationAction.RolloverCa(signerProblem);
      }
      return new RotationAction.Bootstrap(servingProblem + "; " + signerProblem);
    }
    CertificateAuthority signer = state.signer();

    if (servingProblem != null) {
      return new RotationAction.RenewServing(servingProblem);
    }

    Instant caRenewAt = policy.renewAt(signer.certificate(), policy.caValidity(), now);
    if (!now.isBefore(caRenewAt)) {
      return new RotationAction.RolloverCa(
          "CA " + subject(signer.certificate()) + " passed its renewal time " + caRenewAt);
    }

    if (CertificateValidator.chainProblem(serving, List.of(signer.certificate()), now) != null) {
      Instant published =
          CertificateIssuer.issuedAt(signer.certificate(), now).plus(policy.overlap());
      if (now.isBefore(published)) {
        return new RotationAction.Keep(
            "new CA " + subject(signer.certificate()) + " reaches clients before it is used",
            published);
      }
      return new RotationAction.RenewServing(
          "serving cert is from the old CA " + serving.getIssuerX500Principal().getName());
    }

    // after the old-CA check, so a renamed service never gets a cert from a CA clients lack yet
    List<String> missing = CertificateValidator.missingNames(serving, names);
    if (!missing.isEmpty()) {
      return new RotationAction.RenewServing(
          "serving cert does not cover " + String.join(", ", missing));
    }

    Instant servingRenewAt = policy.renewAt(serving, policy.servingValidity(), now);
    if (!now.isBefore(servingRenewAt)) {
      return new RotationAction.RenewServing(
          "serving cert passed its renewal time " + servingRenewAt);
    }

    Instant retireAt = CertificateIssuer.issuedAt(serving, now).plus(policy.overlap());
    List<X509Certificate> retired = new ArrayList<>();
    for (X509Certificate ca : bundle) {
      if (ca.equals(signer.certificate())) {
        continue;
      }
      boolean expired = !now.isBefore(ca.getNotAfter().toInstant());
      if (expired || !now.isBefore(retireAt)) {
        retired.add(ca);
      }
    }
    if (!retired.isEmpty()) {
      return new RotationAction.RetireCa(
          "no serving cert from " + subjects(retired) + " is in use any more", retired);
    }

    Instant reviewAt = earliest(servingRenewAt, caRenewAt);
    if (bundle.size() > 1) {
      reviewAt = earliest(reviewAt, retireAt);
    }
    return new RotationAction.Keep(
        "serving cert valid until " + serving.getNotAfter().toInstant(), reviewAt);
  }

  /** Performs {@code action} at the clock's time and returns the state to persist. */
  public RotationState apply(RotationAction action, RotationState state) {
    CertificateIssuer issuer = new CertificateIssuer(clock);
    Instant now = clock.instant();
    if (action instanceof RotationAction.Keep) {
      return state;
    }
    if (action instanceof RotationAction.Bootstrap) {
      CertificateAuthority ca = issuer.newAuthority(policy.caValidity(), policy.keyType());
      KeyedCertificate serving =
          issuer.issueServing(ca, names, policy.servingValidity(), policy.keyType());
      // unexpired old CAs stay until the overlap has passed: a replica may still serve from them
      List<X509Certificate> bundle = new ArrayList<>(unexpired(state.caBundle(), now));
      bundle.add(ca.certificate());
      return new RotationState(
          new CertificateSet(bundle, serving.certificate(), serving.privateKey()), ca);
    }
    if (action instanceof RotationAction.RolloverCa) {
      CertificateAuthority ca = issuer.newAuthority(policy.caValidity(), policy.keyType());
      List<X509Certificate> bundle = new ArrayList<>(unexpired(state.caBundle(), now));
      bundle.add(ca.certificate());
      return new RotationState(state.set().withCaCertificates(bundle), ca);
    }
    if (action instanceof RotationAction.RenewServing) {
      KeyedCertificate serving =
          issuer.issueServing(state.signer(), names, policy.servingValidity(), policy.keyType());
      return new RotationState(
          new CertificateSet(state.caBundle(), serving.certificate(), serving.privateKey()),
          state.signer());
    }
    if (action instanceof RotationAction.RetireCa retire) {
      List<X509Certificate> bundle = new ArrayList<>(state.caBundle());
      bundle.removeAll(retire.retired());
      return new RotationState(state.set().withCaCertificates(bundle), state.signer());
    }
    throw new IllegalArgumentException("unknown action " + action);
  }

  /**
   * Plans and applies until the plan is {@link RotationAction.Keep}, at most a few steps: each
   * change that must wait for the overlap ends in a Keep.
   */
  public Reconciled reconcile(RotationState state) {
    List<RotationAction> applied = new ArrayList<>();
    RotationState current = state;
    for (int i = 0; i < 8; i++) {
      RotationAction action = plan(current);
      if (action instanceof RotationAction.Keep keep) {
        return new Reconciled(current, applied, keep);
      }
      current = apply(action, current);
      applied.add(action);
    }
    throw new IllegalStateException("rotation did not settle; last actions: " + applied);
  }

  /** The state after {@link #reconcile}, the steps taken, and when to look again. */
  public record Reconciled(
      RotationState state, List<RotationAction> applied, RotationAction.Keep next) {
    public Reconciled {
      applied = List.copyOf(applied);
    }

    public boolean changed() {
      return !applied.isEmpty();
    }
  }

  private static String servingProblem(CertificateSet set, Instant now) {
    X509Certificate serving = set.certificate();
    if (!now.isBefore(serving.getNotAfter().toInstant())) {
      return "serving cert expired at " + serving.getNotAfter().toInstant();
    }
    if (!CertificateValidator.keyMatches(serving, set.privateKey())) {
      return "tls.key does not belong to tls.crt";
    }
    String chain = CertificateValidator.chainProblem(serving, set.caCertificates(), now);
    if (chain != null) {
      return "serving cert does not chain to the CA bundle: " + chain;
    }
    return null;
  }

  private static String signerProblem(
      RotationState state, List<X509Certificate> bundle, Instant now) {
    CertificateAuthority signer = state.signer();
    if (signer == null) {
      return state.signerProblem() != null ? state.signerProblem() : "no CA key to sign with";
    }
    if (!bundle.contains(signer.certificate())) {
      return "signing CA " + subject(signer.certificate()) + " is not in the CA bundle";
    }
    if (!now.isBefore(signer.certificate().getNotAfter().toInstant())) {
      return "signing CA expired at " + signer.certificate().getNotAfter().toInstant();
    }
    return null;
  }

  private static List<X509Certificate> unexpired(List<X509Certificate> cas, Instant now) {
    return cas.stream().filter(ca -> now.isBefore(ca.getNotAfter().toInstant())).toList();
  }

  private static Instant earliest(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static String subject(X509Certificate certificate) {
    return certificate.getSubjectX500Principal().getName();
  }

  private static String subjects(List<X509Certificate> certificates) {
    return String.join(", ", certificates.stream().map(RotationPlanner::subject).toList());
  }
}
