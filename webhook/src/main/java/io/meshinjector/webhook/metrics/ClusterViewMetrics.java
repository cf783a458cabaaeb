package io.meshinjector.webhook.metrics;

import io.meshinjector.webhook.cluster.ViewHealth;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** The cluster view's freshness, as Prometheus series. */
public final class ClusterViewMetrics {
  static final String AGE = "mesh_injector_cluster_view_age_seconds";
  static final String SYNCED = "mesh_injector_cluster_view_synced";
  static final String SOURCE_SYNCED = "mesh_injector_cluster_source_synced";
  static final String FITS = "mesh_injector_cluster_view_fits";
  static final String HEAP_USED = "mesh_injector_heap_used_after_gc_ratio";
  static final String NODE_SHAPES = "mesh_injector_cluster_view_node_shapes";

  private ClusterViewMetrics() {}

  public static void register(MeterRegistry registry, ViewHealth health) {
    Gauge.builder(AGE, health, h -> h.age().map(a -> a.toMillis() / 1000.0).orElse(Double.NaN))
        .description(
            "Seconds the cluster view has not been known to be in sync with the API server: 0"
                + " while every informer watches; NaN before the first sync")
        .register(registry);
    Gauge.builder(SYNCED, health, h -> h.synced() ? 1 : 0)
        .description("1 once every required source (Nodes, Namespaces) has delivered its state")
        .register(registry);
    Gauge.builder(FITS, health, h -> h.fits() ? 1 : 0)
        .description(
            "1 while the cluster view fits the heap; 0 when the heap in use after a collection is"
                + " past 85 % of it (the replica is then not ready, and its log names the memory"
                + " limit to set)")
        .register(registry);
    Gauge.builder(HEAP_USED, health, ViewHealth::heapUsedShare)
        .description("Share of the maximum heap in use after the last collection")
        .register(registry);
    // the view's memory per node assumes the nodes of a pool share one shape
    Gauge.builder(NODE_SHAPES, health, ViewHealth::nodeShapes)
        .description(
            "Distinct node shapes (labels but the node's name, taints, unschedulable, OS image,"
                + " kubelet) the cluster view holds for its nodes to share, and until the next"
                + " pruning those no node has any more; near the node count, each node holds its"
                + " own. NaN for a view from files")
        .register(registry);
    for (String source : health.sourceNames()) {
      Gauge.builder(SOURCE_SYNCED, health, h -> h.sourceSynced(source) ? 1 : 0)
          .description(
              "1 once the source has delivered its state; an optional source (nodecapabilities,"
                  + " cni-pods) at 0 leaves the verdicts it feeds unknown")
          .tag("source", source)
          .register(registry);
    }
  }
}
