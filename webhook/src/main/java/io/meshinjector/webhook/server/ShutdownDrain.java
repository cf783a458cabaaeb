package io.meshinjector.webhook.server;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * The first thing to stop on SIGTERM (the context close it triggers): {@code /readyz} turns 503,
 * then the listener keeps serving for the drain period, so the endpoints controller and every
 * kube-proxy drop this replica before its port closes. Only then does the web server's graceful
 * shutdown stop accepting and wait for the requests in flight.
 */
final class ShutdownDrain implements SmartLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(ShutdownDrain.class);

  private final ApplicationEventPublisher events;
  private final Duration drainPeriod;
  private volatile boolean running;

  ShutdownDrain(ApplicationEventPublisher events, Duration drainPeriod) {
    this.events = events;
    this.drainPeriod = drainPeriod;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    AvailabilityChangeEvent.publish(events, this, ReadinessState.REFUSING_TRAFFIC);
    LOG.info(
        "shutting down: /readyz answers 503; still serving for the drain period of {} ms",
        drainPeriod.toMillis());
    try {
      Thread.sleep(drainPeriod.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.info("drain period over: finishing the requests in flight, accepting no new connections");
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Before the web server's graceful shutdown and its stop, which have lower phases. */
  @Override
  public int getPhase() {
    return Integer.MAX_VALUE;
  }
}
