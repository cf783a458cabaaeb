package io.meshinjector.engine;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.decision.Decision;
import java.time.Clock;
import java.util.Objects;

/**
 * The one decision path: whoever asks (webhook, {@code inject}, {@code explain}), a pod and a
 * cluster view give a {@link Decision}. Pure: no I/O, no shared mutable state.
 */
public final class RuleEngine {
  private final EngineConfig config;
  private final Clock clock;

  public RuleEngine(EngineConfig config, Clock clock) {
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Decides how to inject {@code pod}.
   *
   * @param workload {@code namespace/Kind/name}, for messages and {@code explain}
   * @param pod the pod, or a pod built from a workload's template; its {@code metadata.namespace}
   *     must be set
   */
  public Decision decide(String workload, Pod pod, ClusterView cluster) {
    // a pod without metadata is a pod without annotations or namespace, not a crash (found by
    // DecisionFuzzTest)
    Pod whole =
        pod.getMetadata() != null
            ? pod
            : new PodBuilder(pod).withNewMetadata().endMetadata().build();
    return new DecisionRun(config, clock.instant(), workload, whole, cluster).run();
  }
}
