package io.meshinjector.webhook.tls;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes part in electing one leader on a Lease, for as long as it is open. fabric8's elector ends
 * when it loses the lease; this one then stands again, so a replica that lost the lease during an
 * API server hiccup can lead again later.
 */
public final class LeaderElection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** Durations as client-go's defaults: a dead leader is replaced within about 15 s. */
  public record Timing(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    public static Timing defaults() {
      return new Timing(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
    }
  }

  private final KubernetesClient client;
  private final String namespace;
  private final String leaseName;
  private final String identity;
  private final Timing timing;
  private final Runnable onStartLeading;
  private final Runnable onStopLeading;
  private volatile boolean leading;
  private volatile boolean closed;
  private volatile CompletableFuture<?> running;

  public LeaderElection(
      KubernetesClient client,
      String namespace,
      String leaseName,
      String identity,
      Timing timing,
      Runnable onStartLeading,
      Runnable onStopLeading) {
    this.client = Objects.requireNonNull(client, "client");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.leaseName = Objects.requireNonNull(leaseName, "leaseName");
    this.identity = Objects.requireNonNull(identity, "identity");
    this.timing = Objects.requireNonNull(timing, "timing");
    this.onStartLeading = Objects.requireNonNull(onStartLeading, "onStartLeading");
    this.onStopLeading = Objects.requireNonNull(onStopLeading, "onStopLeading");
  }

  public synchronized void start() {
    if (closed) {
      return;
    }
    CompletableFuture<?> future =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(leaseName)
                    .withLock(new LeaseLock(namespace, leaseName, identity))
                    .withLeaseDuration(timing.leaseDuration())
                    .withRenewDeadline(timing.renewDeadline())
                    .withRetryPeriod(timing.retryPeriod())
                    // a clean shutdown hands over at once instead of after the lease duration
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(this::started, this::stopped, this::newLeader))
                    .build())
            .build()
            .start();
    running = future;
    future.whenComplete(
        (ignored, error) -> {
          if (closed) {
            return;
          }
          if (error != null) {
            LOG.warn("tls: leader election on lease {}/{} ended: {}", namespace, leaseName, error);
          }
          CompletableFuture.delayedExecutor(timing.retryPeriod().toMillis(), TimeUnit.MILLISECONDS)
              .execute(this::start);
        });
  }

  public boolean isLeader() {
    return leading;
  }

  public String identity() {
    return identity;
  }

  private void started() {
    leading = true;
    LOG.info("tls: {} leads on lease {}/{}", identity, namespace, leaseName);
    onStartLeading.run();
  }

  private void stopped() {
    boolean was = leading;
    leading = false;
    if (was) {
      LOG.info("tls: {} no longer leads on lease {}/{}", identity, namespace, leaseName);
      onStopLeading.run();
    }
  }

  private void newLeader(String leader) {
    if (!identity.equals(leader)) {
      LOG.info("tls: {} leads on lease {}/{}", leader, namespace, leaseName);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    CompletableFuture<?> future = running;
    if (future != null) {
      future.cancel(true);
    }
  }
}
