package io.meshinjector.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.decision.Decision;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** One decision for a typical Deployment pod over a large mixed cluster with taints. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DecisionBenchmark {
  @Param({"5000"})
  int nodes;

  private RuleEngine engine;
  private InMemoryClusterView view;
  private Pod pod;

  @Setup
  public void setUp() {
    EngineConfig config = ConfigLoader.defaults().engine();
    view = InMemoryClusterView.of(config.capabilities(), BenchCluster.objects(nodes));
    engine = new RuleEngine(config, Clock.fixed(BenchCluster.NOW, ZoneOffset.UTC));
    pod = BenchCluster.deploymentPod();
    Decision d = engine.decide("shop/Deployment/web", pod, view);
    if (!d.inject() || d.candidateCount() == 0) {
      throw new IllegalStateException("fixture should inject over many candidates: " + d.trace());
    }
  }

  @Benchmark
  public Decision decide() {
    return engine.decide("shop/Deployment/web", pod, view);
  }
}
