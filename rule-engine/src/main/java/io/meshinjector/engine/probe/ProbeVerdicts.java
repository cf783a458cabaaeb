package io.meshinjector.engine.probe;

import static io.meshinjector.engine.probe.ProbeFacts.unknown;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.ProbeSource;
import io.meshinjector.engine.capability.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns one node's measurements into {@code iptables-legacy}, {@code iptables-nft}, {@code
 * ip6tables-legacy}, {@code ip6tables-nft}, {@code nftables} and {@code cni} verdicts, each with
 * the facts and the reason behind it. {@code native-sidecar}, {@code ipv6-pods} and {@code os} are
 * left out: the webhook reads them from the Node object (the kubelet's version, the pod CIDRs, the
 * OS label).
 *
 * <p>Never throws on what a node holds: whatever was not measured becomes {@code unknown} with the
 * reason, so one broken file on one node never stops the DaemonSet from reporting the rest.
 */
public final class ProbeVerdicts {
  private ProbeVerdicts() {}

  public static ProbeReport report(NodeMeasurements m, ProbeOptions options, Instant observedAt) {
    Objects.requireNonNull(options, "options");
    Map<CapabilityKey, Verdict> caps = new EnumMap<>(CapabilityKey.class);
    Map<String, String> facts = new LinkedHashMap<>();
    List<String> findings = new ArrayList<>();

    osFacts(m, facts);
    facts.put(ProbeFacts.KERNEL, m.kernel() != null ? m.kernel() : unknown(m.kernelProblem()));
    iptablesFacts(m, facts);

    Map<CapabilityKey, ProbeFinding> files = new EnumMap<>(CapabilityKey.class);
    if (m.modules() != null) {
      KernelModules k = m.modules();
      ModuleVerdicts.facts(k, facts);
      files.put(CapabilityKey.IPTABLES_LEGACY, ModuleVerdicts.legacy(k, m.kernel()));
      files.put(CapabilityKey.IPTABLES_NFT, ModuleVerdicts.nft(k, m.kernel()));
      files.put(CapabilityKey.IP6TABLES_LEGACY, ModuleVerdicts.ip6Legacy(k, m.kernel()));
      files.put(CapabilityKey.IP6TABLES_NFT, ModuleVerdicts.ip6Nft(k, m.kernel()));
      files.put(CapabilityKey.NFTABLES, ModuleVerdicts.nftables(k, m.kernel()));
    } else {
      for (ActiveCheck.Backend b : ActiveCheck.Backend.values()) {
        files.put(b.key(), ProbeFinding.unknown(m.modulesProblem()));
      }
    }
    Map<CapabilityKey, ProbeSource> sources = new EnumMap<>(CapabilityKey.class);
    // every key a backend is tried for, in the order the check tries them; ipv6-pods and os are
    // the Node's to say, never the probe's
    for (ActiveCheck.Backend b : ActiveCheck.Backend.values()) {
      recordBackend(b.key(), files.get(b.key()), m, caps, facts, sources, findings);
    }

    ProbeFinding cni =
        m.cni() != null
            ? CniVerdict.decide(m.cni(), m.iptables(), options, facts)
            : ProbeFinding.unknown("the CNI was not measured");
    sources.put(CapabilityKey.CNI, ProbeSource.FILES);
    record(CapabilityKey.CNI, new Sourced(cni, ProbeSource.FILES), caps, facts, findings);

    String selinux = m.selinux() != null ? m.selinux() : unknown("not measured");
    facts.put(ProbeFacts.SELINUX, selinux);
    if (Selinux.isEnforcing(selinux)) {
      findings.add(
          "selinux is enforcing: a file the probe could not read may be denied by policy, not"
              + " missing (see probe.securityContext in the chart)");
    }
    findings.add(
        0,
        "node: "
            + facts.getOrDefault(ProbeFacts.OS, "?")
            + ", kernel "
            + facts.getOrDefault(ProbeFacts.KERNEL, "?")
            + ", host iptables "
            + facts.getOrDefault(ProbeFacts.HOST_IPTABLES, "?")
            + " ("
            + facts.getOrDefault(ProbeFacts.HOST_IPTABLES_LINK, "?")
            + ")");
    return new ProbeReport(new NodeCapabilityStatus(observedAt, caps, facts, sources), findings);
  }

  private static void osFacts(NodeMeasurements m, Map<String, String> facts) {
    if (m.osRelease() == null) {
      facts.put(ProbeFacts.OS, unknown(m.osProblem()));
      return;
    }
    Map<String, String> fields = OsRelease.parse(m.osRelease());
    facts.put(ProbeFacts.OS, OsRelease.summary(fields));
    if (fields.containsKey("PRETTY_NAME")) {
      facts.put(ProbeFacts.OS_NAME, fields.get("PRETTY_NAME"));
    }
  }

  private static void iptablesFacts(NodeMeasurements m, Map<String, String> facts) {
    HostIptables iptables = m.iptables();
    if (iptables == null) {
      facts.put(ProbeFacts.HOST_IPTABLES, unknown(m.iptablesProblem()));
      return;
    }
    facts.put(ProbeFacts.HOST_IPTABLES, iptables.backend());
    facts.put(ProbeFacts.HOST_IPTABLES_LINK, iptables.link());
    facts.put(
        ProbeFacts.HOST_BINARIES,
        iptables.present() != null
            ? String.join(",", iptables.present())
            : unknown(iptables.problem()));
  }

  private static void recordBackend(
      CapabilityKey key,
      ProbeFinding files,
      NodeMeasurements m,
      Map<CapabilityKey, Verdict> caps,
      Map<String, String> facts,
      Map<CapabilityKey, ProbeSource> sources,
      List<String> findings) {
    Sourced verdict = combine(key, files, m.active().get(key), facts);
    sources.put(key, verdict.source());
    record(key, verdict, caps, facts, findings);
  }

  /** A verdict and how the probe reached it. */
  private record Sourced(ProbeFinding outcome, ProbeSource source) {}

  /**
   * What the node did when tried beats what its files suggest: a kernel with netfilter built in and
   * no module files says nothing in its files, and a module listed as present may still fail to
   * load. The files stay as the fallback, and as the explanation of a failure (which module is
   * missing).
   */
  private static Sourced combine(
      CapabilityKey key, ProbeFinding files, ActiveCheck.Result active, Map<String, String> facts) {
    if (active == null) {
      return new Sourced(files, ProbeSource.FILES);
    }
    facts.put(ProbeFacts.activeKey(key), describe(active));
    facts.put(ProbeFacts.filesKey(key), files.verdict().id() + ": " + files.reason());
    if (active instanceof ActiveCheck.Worked w) {
      return new Sourced(new ProbeFinding(Verdict.AVAILABLE, w.text()), ProbeSource.ACTIVE);
    }
    if (active instanceof ActiveCheck.Failed f) {
      String explanation =
          files.verdict() == Verdict.UNKNOWN
              ? ""
              : "; the node's files say " + files.verdict().id() + ": " + files.reason();
      return new Sourced(
          new ProbeFinding(Verdict.UNAVAILABLE, f.text() + explanation), ProbeSource.ACTIVE);
    }
    return new Sourced(
        new ProbeFinding(
            files.verdict(), files.reason() + "; active check not run: " + active.text()),
        ProbeSource.FILES);
  }

  private static String describe(ActiveCheck.Result r) {
    String what =
        r instanceof ActiveCheck.Worked
            ? "available"
            : r instanceof ActiveCheck.Failed ? "unavailable" : "not run";
    return what + ": " + r.text();
  }

  private static void record(
      CapabilityKey key,
      Sourced sourced,
      Map<CapabilityKey, Verdict> caps,
      Map<String, String> facts,
      List<String> findings) {
    ProbeFinding outcome = sourced.outcome();
    caps.put(key, outcome.verdict());
    facts.put(ProbeFacts.reasonKey(key), outcome.reason());
    findings.add(
        key.id()
            + ": "
            + outcome.verdict().id()
            + " - "
            + outcome.reason()
            + " ["
            + sourced.source().id()
            + "]");
  }
}
