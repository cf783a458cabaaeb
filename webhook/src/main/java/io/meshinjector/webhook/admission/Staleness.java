package io.meshinjector.webhook.admission;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/** The warning every admission response carries while the cluster view is too old. */
public final class Staleness {
  private final Supplier<Optional<Duration>> viewAge;
  private final Duration limit;

  /**
   * @param viewAge how long ago the cluster view was last known current; empty while it is
   */
  public Staleness(Supplier<Optional<Duration>> viewAge, Duration limit) {
    this.viewAge = Objects.requireNonNull(viewAge, "viewAge");
    this.limit = Objects.requireNonNull(limit, "limit");
  }

  /** Never stale: a fixed view. */
  public static Staleness never() {
    return new Staleness(Optional::empty, Duration.ofDays(365_000));
  }

  public Optional<String> warning() {
    Optional<Duration> age = viewAge.get();
    if (age.isEmpty() || age.get().compareTo(limit) <= 0) {
      return Optional.empty();
    }
    return Optional.of(
        "mesh-injector: decided from a cluster view "
            + age.get().toSeconds()
            + "s old (the API server has not been reachable for longer than "
            + limit.toSeconds()
            + "s): nodes, namespaces and capability reports may have changed since");
  }
}
