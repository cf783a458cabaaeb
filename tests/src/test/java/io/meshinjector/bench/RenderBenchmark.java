package io.meshinjector.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.ConfigOverrides;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.templates.PatchResult;
import io.meshinjector.templates.PodInjector;
import io.meshinjector.templates.TemplateConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The injection patch for a typical Deployment pod, and for one with 500 env vars and
 * managedFields.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RenderBenchmark {
  @Param({"typical", "env500"})
  String pod;

  private PodInjector injector;
  private Pod original;
  private Decision decision;
  private JsonNode received;

  @Setup
  public void setUp() {
    injector = new PodInjector(TemplateConfig.from(ConfigLoader.defaults()));
    original = "typical".equals(pod) ? BenchCluster.deploymentPod() : bigPod();
    decision =
        new Decision(
            "shop/Deployment/web",
            new Outcome.Inject(
                new Plan(PathOption.INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, true, false, null)),
            List.of(),
            1,
            List.of(),
            List.of(),
            List.of(),
            null,
            ConfigOverrides.NONE);
    received = new ObjectMapper().valueToTree(original);
    if (patch().patch().isEmpty()) {
      throw new IllegalStateException("fixture should produce a patch");
    }
  }

  /** The patch an admission sends, against the pod's tree as the codec read it. */
  @Benchmark
  public PatchResult patch() {
    return injector.patch(received, original, decision);
  }

  private static Pod bigPod() {
    Pod pod = new PodBuilder(BenchCluster.deploymentPod()).build();
    List<EnvVar> env = new ArrayList<>();
    Map<String, Object> fields = new LinkedHashMap<>();
    for (int i = 0; i < 500; i++) {
      env.add(new EnvVar("VAR_" + i, "value-" + i + "-" + "x".repeat(40), null));
      fields.put("k:{\"name\":\"VAR_" + i + "\"}", Map.of(".", Map.of(), "f:name", Map.of()));
    }
    pod.getSpec().getContainers().get(0).setEnv(env);
    ManagedFieldsEntry mf = new ManagedFieldsEntry();
    mf.setManager("kubectl");
    mf.setOperation("Update");
    mf.setFieldsType("FieldsV1");
    FieldsV1 f1 = new FieldsV1();
    f1.setAdditionalProperty("f:spec", Map.of("f:containers", fields));
    mf.setFieldsV1(f1);
    pod.getMetadata().setManagedFields(List.of(mf));
    return pod;
  }
}
