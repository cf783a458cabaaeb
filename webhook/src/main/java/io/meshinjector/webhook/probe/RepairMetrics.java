package io.meshinjector.webhook.probe;

import io.meshinjector.engine.repair.Flavour;
import io.meshinjector.engine.repair.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;

/**
 * {@code mesh_injector_repairs_total{flavour,outcome}}: every flavour and outcome registered at
 * zero, so an alert on an increase sees the first one.
 */
public final class RepairMetrics {
  static final String REPAIRS = "mesh_injector_repairs";

  private final Map<Flavour, Map<Outcome, Counter>> counters = new EnumMap<>(Flavour.class);

  public RepairMetrics(MeterRegistry registry) {
    for (Flavour f : Flavour.values()) {
      Map<Outcome, Counter> byOutcome = new EnumMap<>(Outcome.class);
      for (Outcome o : Outcome.values()) {
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

  void count(Flavour flavour, Outcome outcome) {
    counters.get(flavour).get(outcome).increment();
  }
}
