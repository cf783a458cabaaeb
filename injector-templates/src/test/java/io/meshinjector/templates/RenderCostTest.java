package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A coarse guard on render + diff cost (the JMH figures live in the tests module): the bounds are
 * ten times the targets so a loaded CI machine does not fail them, yet a quadratic diff would.
 */
class RenderCostTest {
  private static final PodInjector INJECTOR = Fixtures.injector();

  @Test
  void typicalDeploymentPod() {
    Pod pod = Cases.all().findFirst().orElseThrow().pods().get(0);
    long median = medianNanos(pod, 3000);
    System.out.printf("render+diff typical pod: median %d us%n", median / 1000);
    assertThat(median).isLessThan(1_000_000L);
  }

  @Test
  void podWith500EnvVarsAndLargeManagedFields() {
    Pod base = Cases.all().findFirst().orElseThrow().pods().get(0);
    Pod pod = new PodBuilder(base).build();
    List<EnvVar> env = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      env.add(new EnvVar("VAR_" + i, "value-" + i + "-" + "x".repeat(40), null));
    }
    pod.getSpec().getContainers().get(0).setEnv(env);
    Map<String, Object> fields = new LinkedHashMap<>();
    for (int i = 0; i < 500; i++) {
      fields.put("k:{\"name\":\"VAR_" + i + "\"}", Map.of(".", Map.of(), "f:name", Map.of()));
    }
    ManagedFieldsEntry mf = new ManagedFieldsEntry();
    mf.setManager("kubectl");
    mf.setOperation("Update");
    mf.setFieldsType("FieldsV1");
    io.fabric8.kubernetes.api.model.FieldsV1 f1 = new io.fabric8.kubernetes.api.model.FieldsV1();
    f1.setAdditionalProperty("f:spec", Map.of("f:containers", fields));
    mf.setFieldsV1(f1);
    pod.getMetadata().setManagedFields(List.of(mf));

    long median = medianNanos(pod, 500);
    System.out.printf("render+diff 500 env vars: median %d us%n", median / 1000);
    assertThat(median).isLessThan(20_000_000L);
  }

  private static long medianNanos(Pod pod, int rounds) {
    Decision d =
        Fixtures.inject(
            "emojivoto/Deployment/web", PathOption.INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, true);
    long[] t = new long[rounds];
    int ops = 0;
    for (int i = 0; i < rounds + rounds / 2; i++) {
      long start = System.nanoTime();
      Pod out = INJECTOR.render(pod, d);
      ops += JsonPatches.diff(pod, out).patch().size();
      long took = System.nanoTime() - start;
      if (i >= rounds / 2) {
        t[i - rounds / 2] = took;
      }
    }
    assertThat(ops).isPositive();
    Arrays.sort(t);
    return t[rounds / 2];
  }
}
