package io.meshinjector.webhook.tls;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Self-managed mode on one replica: while it leads, runs the reconciler now and then again when the
 * rotation plan is next due, at most {@code resyncPeriod} later. Failures are retried with a
 * growing delay; a missing webhook configuration (Helm creates it after the Deployment) is looked
 * for again soon, since until then the API server has no caBundle to trust.
 */
public final class SelfManagedCertificates implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SelfManagedCertificates.class);
  static final Duration SOON = Duration.ofSeconds(5);
  private static final Duration MIN_DELAY = Duration.ofSeconds(1);

  private final CertificateReconciler reconciler;
  private final TlsSettings settings;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private ScheduledFuture<?> next;
  private boolean leading;
  private Duration backoff = SOON;

  public SelfManagedCertificates(
      CertificateReconciler reconciler, TlsSettings settings, Clock clock) {
    this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tls-reconciler");
              t.setDaemon(true);
              return t;
            });
  }

  /** The leader election's start callback. */
  public synchronized void startLeading() {
    leading = true;
    backoff = SOON;
    schedule(Duration.ZERO);
  }

  /** The leader election's stop callback: a former leader must not write any more. */
  public synchronized void stopLeading() {
    leading = false;
    if (next != null) {
      next.cancel(false);
    }
  }

  private synchronized void schedule(Duration delay) {
    if (!leading || executor.isShutdown()) {
      return;
    }
    if (next != null) {
      next.cancel(false);
    }
    next = executor.schedule(this::runOnce, delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void runOnce() {
    synchronized (this) {
      if (!leading) {
        return;
      }
    }
    Duration delay;
    try {
      CertificateReconciler.Result result = reconciler.reconcile();
      delay = delayUntil(result.reviewAt());
      if (!result.webhookConfigurationFound()) {
        delay = min(delay, SOON);
      }
      synchronized (this) {
        backoff = SOON;
      }
    } catch (RuntimeException e) {
      synchronized (this) {
        delay = backoff;
        backoff = min(backoff.multipliedBy(2), settings.resyncPeriod());
      }
      LOG.warn(
          "tls: reconciling failed, retrying in {}s: {} ({})",
          delay.toSeconds(),
          e.toString(),
          settings.describe());
    }
    schedule(delay);
  }

  Duration delayUntil(Instant reviewAt) {
    Duration untilReview = Duration.between(clock.instant(), reviewAt);
    Duration delay = min(untilReview, settings.resyncPeriod());
    return delay.compareTo(MIN_DELAY) < 0 ? MIN_DELAY : delay;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  @Override
  public void close() {
    stopLeading();
    executor.shutdownNow();
  }
}
