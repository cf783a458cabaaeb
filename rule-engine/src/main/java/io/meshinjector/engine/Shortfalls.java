package io.meshinjector.engine;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.rules.Viability;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;

/** What candidate classes lack for a path or a native sidecar, as warnings and refusals say it. */
final class Shortfalls {
  private final Viability viability;

  Shortfalls(Viability viability) {
    this.viability = viability;
  }

  /** Each class on which some of the paths do not work, with what it lacks for each. */
  String lacks(List<PathOption> options, List<Candidate> classes) {
    StringJoiner j = new StringJoiner("; ");
    for (Candidate c : classes) {
      StringJoiner missing = new StringJoiner(", ");
      for (PathOption o : options) {
        if (!viability.viable(o, c.caps())) {
          missing.add(o + " (" + viability.lack(o, c.caps()) + ")");
        }
      }
      // a class on which every path works is not why the pod is refused
      if (missing.length() > 0) {
        j.add((c.count() == 0 ? "unknown node" : c.describe()) + " lacks " + missing);
      }
    }
    return j.toString();
  }

  /** Each class that does not run native sidecars, with its verdict. */
  String nativeLacks(List<Candidate> classes) {
    StringJoiner j = new StringJoiner("; ");
    for (Candidate c : classes) {
      if (!viability.nativeSidecar(c.caps())) {
        j.add(c.describe() + " has native-sidecar " + c.caps().get(CapabilityKey.NATIVE_SIDECAR));
      }
    }
    return j.toString();
  }

  /**
   * The fixes of the iptables paths among the options, as the tail of a message; where the pod's
   * redirect covers IPv6, each with its IPv6 half.
   */
  String fixes(List<PathOption> options) {
    StringJoiner j = new StringJoiner("; or ", ". Fix: ", "");
    boolean any = false;
    for (PathOption o : options) {
      if (o.mode() != IptablesMode.PLAIN) {
        String ipv6 = viability.keys(o).size() > 1 ? Viability.ipv6Fix(o) : "";
        j.add(Viability.fix(o) + (ipv6.isEmpty() ? "" : ", and " + ipv6));
        any = true;
      }
    }
    return any ? j.toString() : "";
  }

  /**
   * The warning that {@code key} is unknown on some of the remaining classes and counted as its
   * positive verdict ({@code capabilities.assumeUnknown}); empty when neither holds.
   */
  Optional<String> unknownAssumed(CapabilityKey key, List<Candidate> remaining) {
    List<String> unknown = new ArrayList<>();
    for (Candidate c : remaining) {
      if (c.caps().verdict(key) == Verdict.UNKNOWN) {
        unknown.add(c.count() == 0 ? "the unknown node" : c.describe());
      }
    }
    if (!unknown.isEmpty() && viability.assumed(key)) {
      return Optional.of(
          key.id()
              + " is unknown on "
              + String.join("; ", unknown)
              + ": assumed "
              + key.positive().id()
              + " (capabilities.assumeUnknown)");
    }
    return Optional.empty();
  }
}
