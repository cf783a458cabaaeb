package io.meshinjector.webhook.http;

import io.meshinjector.webhook.cluster.ViewHealth;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/** The warning every admission response carries while the cluster view is too old. */
public final class Staleness {
  private final ViewHealth health;
  private final Duration limit;

  public Staleness(ViewHealth health, Duration limit) {
    this.health = Objects.requireNonNull(health, "health");
    this.limit = Objects.requireNonNull(limit, "limit");
  }

  /** Never stale: a fixed view. */
  public static Staleness never() {
    return new Staleness(ViewHealth.fixed(), Duration.ofDays(365_000));
  }

  public Optional<String> warning() {
    Optional<Duration> age = health.age();
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
