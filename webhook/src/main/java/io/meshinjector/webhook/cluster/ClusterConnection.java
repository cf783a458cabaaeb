package io.meshinjector.webhook.cluster;

import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.Map;

/** Where {@code serve}'s decisions come from: files read once, or a cluster kept in view. */
public interface ClusterConnection extends AutoCloseable {

  /** The view admissions decide from. */
  ClusterView view();

  ViewHealth health();

  /**
   * Each node's last probe report time, for the probe-age metrics; empty when the view holds no
   * reports.
   */
  default Map<String, Instant> probeReportTimes() {
    return view() instanceof InMemoryClusterView v ? v.probeReportTimes() : Map.of();
  }

  /** One line for the start-up log: which view is in use. */
  String describe();

  /** Starts whatever keeps the view current; returns without waiting for it. */
  void start(MeterRegistry registry);

  @Override
  void close();

  /** The {@code --cluster} files' view: complete at once, never changing. */
  static ClusterConnection fixed(ClusterView view, String description) {
    return new ClusterConnection() {
      @Override
      public ClusterView view() {
        return view;
      }

      @Override
      public ViewHealth health() {
        return ViewHealth.fixed();
      }

      @Override
      public String describe() {
        return description;
      }

      @Override
      public void start(MeterRegistry registry) {}

      @Override
      public void close() {}
    };
  }
}
