package io.meshinjector.webhook.probe;

import io.meshinjector.engine.repair.Flavour;
import io.meshinjector.engine.repair.RepairOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code mesh_injector_repairs_total{flavour,outcome}}: every flavour and outcome registered at
 * zero, so an alert on an increase sees the first one.
 */
public final class RepairMetrics {
  static final String REPAIRS = "mesh_injector_repairs";
  static final String WATCHED = "mesh_injector_repair_watched_pods";
  static final String RECEIVED = "mesh_injector_repair_pod_notifications";

  private final Map<Flavour, Map<RepairOutcome, Counter>> counters = new EnumMap<>(Flavour.class);
  private final MeterRegistry registry;
  // Micrometer holds a gauge's and a function counter's object weakly: kept here, where the
  // repair's own reference keeps them alive, or they would read NaN after the first GC
  private Supplier<Integer> watched;
  private Supplier<Long> received;

  public RepairMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (Flavour f : Flavour.values()) {
      Map<RepairOutcome, Counter> byOutcome = new EnumMap<>(RepairOutcome.class);
      for (RepairOutcome o : RepairOutcome.values()) {
        byOutcome.put(
            o,
            Counter.builder(REPAIRS)
                .description(
                    "Injected pods on this node whose redirect step failed, by what the repair"
                        + " did about them")
                .tag("flavour", f.id())
                .tag("outcome", o.id())
                .register(registry));
      }
      counters.put(f, byOutcome);
    }
  }

  /**
   * The watch's size: the pods it holds and the notifications (adds, updates, deletes) it has
   * received, which follow the node's pods, not the cluster's (docs/benchmarks.md).
   */
  void watch(Supplier<Integer> watched, Supplier<Long> received) {
    this.watched = watched;
    this.received = received;
    Gauge.builder(WATCHED, this, m -> m.watched.get())
        .description("Pods the repair's watch holds: those bound to this node")
        .register(registry);
    FunctionCounter.builder(RECEIVED, this, m -> m.received.get())
        .description(
            "Pod adds, updates and deletes the repair's watch received from the API server")
        .register(registry);
  }

  void count(Flavour flavour, RepairOutcome outcome) {
    counters.get(flavour).get(outcome).increment();
  }
}
