package io.meshinjector.engine;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.rules.Viability;
import java.util.List;
import java.util.StringJoiner;

/**
 * Whether a pod's redirect covers IPv6. The init container is rendered once, whichever candidate
 * the pod lands on, so one candidate whose pods get IPv6 addresses is enough: otherwise the pod's
 * IPv6 traffic there would pass its proxy by, with no mTLS and no policy. A node nobody knows the
 * pod CIDRs of counts as {@code proxyInit.ipv6} says ({@code capabilities.assumeUnknown}).
 */
final class Ipv6Rule {
  private Ipv6Rule() {}

  static boolean decide(Viability nodes, List<Candidate> classes, DecisionLog log) {
    StringJoiner present = new StringJoiner("; ");
    StringJoiner unknown = new StringJoiner("; ");
    for (Candidate c : classes) {
      Verdict v = c.caps().verdict(CapabilityKey.IPV6_PODS);
      if (v == Verdict.PRESENT) {
        present.add(name(c) + " ipv6-pods " + c.caps().get(CapabilityKey.IPV6_PODS));
      } else if (v == Verdict.UNKNOWN) {
        unknown.add(name(c));
      }
    }
    boolean assumed = nodes.assumed(CapabilityKey.IPV6_PODS);
    if (present.length() > 0) {
      log.add(
          new TraceStep("ipv6", "the redirect covers IPv6: pods get IPv6 addresses on " + present));
      return true;
    }
    if (unknown.length() > 0) {
      log.add(
          new TraceStep(
              "ipv6",
              "ipv6-pods is unknown on "
                  + unknown
                  + (assumed
                      ? ": proxyInit.ipv6 is true, so the redirect covers IPv6"
                      : ": proxyInit.ipv6 is false, so the redirect is IPv4 only")));
      return assumed;
    }
    log.add(new TraceStep("ipv6", "no candidate gives pods IPv6 addresses: the redirect is IPv4"));
    return false;
  }

  private static String name(Candidate c) {
    return c.count() == 0 ? "the unknown node" : c.describe();
  }
}
