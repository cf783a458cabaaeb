package io.meshinjector.engine.check;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which nodes the probe has reported on lately. A node without a report, or with one older than
 * {@code capabilities.probeTtl}, is decided on inference alone, which may be wrong for it.
 *
 * @param missing nodes without a NodeCapability
 * @param stale nodes whose report is older than the TTL, with its age
 * @param fresh how many nodes have a report within the TTL
 * @param oldest the age of the oldest report, empty when there is none
 */
public record ProbeCoverage(
    List<String> missing, List<Stale> stale, int fresh, Optional<Duration> oldest) {
  public record Stale(String node, Duration age) {}

  public ProbeCoverage {
    missing = List.copyOf(missing);
    stale = List.copyOf(stale);
  }

  /**
   * @param reports each node's report time ({@code status.observedAt}); reports of nodes that are
   *     gone are ignored
   */
  public static ProbeCoverage assess(
      Collection<String> nodes, Map<String, Instant> reports, Instant now, Duration ttl) {
    List<String> missing = new ArrayList<>();
    List<Stale> stale = new ArrayList<>();
    int fresh = 0;
    Duration oldest = null;
    for (String node : nodes) {
      Instant at = reports.get(node);
      if (at == null) {
        missing.add(node);
        continue;
      }
      // a report from ahead of this clock is not old; the resolver already counts it unknown
      Duration age = at.isAfter(now) ? Duration.ZERO : Duration.between(at, now);
      if (oldest == null || age.compareTo(oldest) > 0) {
        oldest = age;
      }
      if (age.compareTo(ttl) > 0) {
        stale.add(new Stale(node, age));
      } else {
        fresh++;
      }
    }
    return new ProbeCoverage(missing, stale, fresh, Optional.ofNullable(oldest));
  }
}
