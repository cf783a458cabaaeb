package io.meshinjector.engine;

import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.decision.Decision;
import java.time.Instant;

/** Placeholder; replaced by the rules. */
final class DecisionRun {
  DecisionRun(EngineConfig config, Instant now, String workload, Pod pod, ClusterView cluster) {}

  Decision run() {
    throw new UnsupportedOperationException("rules not implemented yet");
  }
}
