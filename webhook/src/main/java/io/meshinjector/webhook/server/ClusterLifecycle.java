package io.meshinjector.webhook.server;

import io.meshinjector.webhook.cluster.ClusterConnection;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * The cluster connection as part of the application's lifecycle: its informers start before the
 * HTTPS port opens (readiness waits for their first sync), and stop after it has closed.
 */
public final class ClusterLifecycle implements SmartLifecycle {
  private final ClusterConnection cluster;
  private final MeterRegistry registry;
  private volatile boolean running;

  public ClusterLifecycle(ClusterConnection cluster, MeterRegistry registry) {
    this.cluster = Objects.requireNonNull(cluster, "cluster");
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public void start() {
    cluster.start(registry);
    running = true;
  }

  @Override
  public void stop() {
    cluster.close();
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    // below the web server's phase: started before it, stopped after it
    return 0;
  }
}
