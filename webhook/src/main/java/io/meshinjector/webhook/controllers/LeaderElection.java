package io.meshinjector.webhook.controllers;

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
 * API server hiccup can lead again later. Used for each job only one replica may do (self-managed
 * TLS, the capability label publisher), each on a Lease of its own; {@code purpose} names the job
 * in the logs.
 */
public final class LeaderElection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** Durations as client-go's defaults: a dead leader is replaced within about 15 s. */
  public record Timing(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    public static Timing defaults() {
      return new Timing(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
    }
  }

  private final String purpose;
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
    this("tls", client, namespace, leaseName, identity, timing, onStartLeading, onStopLeading);
  }

  public LeaderElection(
      String purpose,
      KubernetesClient client,
      String namespace,
      String leaseName,
      String identity,
      Timing timing,
      Runnable onStartLeading,
      Runnable onStopLeading) {
    this.purpose = Objects.requireNonNull(purpose, "purpose");
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
            LOG.warn(
                "{}: leader election on lease {}/{} ended: {}",
                purpose,
                namespace,
                leaseName,
                error);
          }
          CompletableFuture.delayedExecutor(timing.retryPeriod().toMillis(), TimeUnit.MILLISECONDS)
              .execute(this::start);
        });
  }

  /** The pod name, unique among replicas; a random suffix keeps a restarted pod distinct. */
  public static String podIdentity() {
    String pod = System.getenv("POD_NAME");
    if (pod == null || pod.isBlank()) {
      pod = System.getenv("HOSTNAME");
    }
    if (pod == null || pod.isBlank()) {
      pod = "mesh-injector";
    }
    return pod + "_" + java.util.UUID.randomUUID().toString().substring(0, 8);
  }

  public String identity() {
    return identity;
  }

  private void started() {
    leading = true;
    LOG.info("{}: {} leads on lease {}/{}", purpose, identity, namespace, leaseName);
    onStartLeading.run();
  }

  private void stopped() {
    boolean was = leading;
    leading = false;
    if (was) {
      LOG.info("{}: {} no longer leads on lease {}/{}", purpose, identity, namespace, leaseName);
      onStopLeading.run();
    }
  }

  private void newLeader(String leader) {
    if (!identity.equals(leader)) {
      LOG.info("{}: {} leads on lease {}/{}", purpose, leader, namespace, leaseName);
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
