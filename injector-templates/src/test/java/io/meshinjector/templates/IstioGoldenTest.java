package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.decision.Decision;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Istio flavour over Istio's own inputs: goldens under {@code golden/istio} ({@code
 * -Dgolden.update=true} rewrites them), the patches applied by Parsson, and the layout invariants:
 * one proxy, the order of the parts, Pod Security {@code restricted} on the CNI path, idempotence.
 */
class IstioGoldenTest {
  private static final PodInjector INJECTOR = IstioCases.injector();
  private static final List<String> PARTS =
      List.of("istio-proxy", "istio-init", "istio-validation");

  static Stream<IstioCases.Case> cases() {
    return IstioCases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void renderedDocumentsMatchGolden(IstioCases.Case c) {
    StringBuilder b = new StringBuilder();
    for (JsonNode in : c.inputs()) {
      List<String> outcomes = new java.util.ArrayList<>();
      JsonNode doc =
          Injected.document(
              in,
              IstioCases.NAMESPACE,
              INJECTOR,
              (w, pod) -> {
                io.meshinjector.engine.decision.Decision d = c.decide(w, pod);
                if (!d.inject()) {
                  outcomes.add("# " + w + ": not injected: " + d.outcome());
                }
                return d;
              });
      b.append("---\n");
      outcomes.forEach(o -> b.append(o).append('\n'));
      b.append(Fixtures.yaml(doc));
      for (WorkloadTemplates.PodTemplateRef ref :
          WorkloadTemplates.podTemplates(doc, IstioCases.NAMESPACE)) {
        Fixtures.assertValidPod(ref.template(), c + " " + ref.workload());
      }
    }
    Fixtures.golden("istio/" + c.name() + ".yaml", b.toString());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void patchesMatchGoldenAndParssonAppliesThem(IstioCases.Case c) throws Exception {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    ArrayNode patches = Fixtures.JSON.createArrayNode();
    for (int i = 0; i < pods.size(); i++) {
      Decision decision = c.decide(workloads.get(i), pods.get(i));
      PatchResult patch = Fixtures.patch(INJECTOR, pods.get(i), decision);
      Pod applied =
          Fixtures.assertValidPod(
              Injected.applied(pods.get(i), patch.patch().toString()), c + " " + workloads.get(i));
      assertThat(Injected.hasContainer(applied, IstioCases.PROXY))
          .as("%s %s injected", c, workloads.get(i))
          .isEqualTo(decision.inject() || Injected.hasContainer(pods.get(i), IstioCases.PROXY));
      patches.add(patch.patch());
    }
    Fixtures.golden(
        "istio/" + c.name() + ".patch.json", Fixtures.JSON.writeValueAsString(patches) + "\n");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void layoutInvariantsHold(IstioCases.Case c) throws Exception {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    for (int i = 0; i < pods.size(); i++) {
      Pod original = pods.get(i);
      Pod once = Injected.pod(INJECTOR, original, c.decide(workloads.get(i), original));
      Decision again = c.decide(workloads.get(i), once);
      Pod twice = Injected.pod(INJECTOR, once, again);
      assertThat(twice).as("idempotent %s", c).isEqualTo(once);
      assertThat(Fixtures.patch(INJECTOR, once, again).patch().isEmpty())
          .as("idempotent %s", c)
          .isTrue();
      if (once.equals(original)) {
        continue; // skipped or refused by the gate (hostNetwork, opt-out, refused annotations)
      }
      PodSpec spec = once.getSpec();
      List<String> inits = names(spec.getInitContainers());
      List<String> containers = names(spec.getContainers());
      List<String> all = Stream.concat(inits.stream(), containers.stream()).toList();
      assertThat(all.stream().filter("istio-proxy"::equals)).as("one proxy %s", c).hasSize(1);
      String redirect = c.cni() ? "istio-validation" : "istio-init";
      assertThat(all)
          .contains(redirect)
          .doesNotContain(c.cni() ? "istio-init" : "istio-validation");
      List<String> appInits = names(original.getSpec().getInitContainers());
      if (c.layout().plan.proxy()
          == io.meshinjector.engine.decision.ProxyPlacement.NATIVE_SIDECAR) {
        assertThat(inits.subList(0, 2)).containsExactly(redirect, "istio-proxy");
        assertThat(inits.subList(2, inits.size())).isEqualTo(appInits);
        assertThat(spec.getInitContainers().get(1).getRestartPolicy()).isEqualTo("Always");
        assertThat(spec.getInitContainers().get(1).getStartupProbe()).isNotNull();
      } else {
        assertThat(containers.get(0)).isEqualTo("istio-proxy");
        assertThat(inits.get(inits.size() - 1)).isEqualTo(redirect);
        assertThat(inits.subList(0, inits.size() - 1)).isEqualTo(appInits);
        Container proxy = spec.getContainers().get(0);
        if (c.layout().plan.proxyAwait()) {
          assertThat(proxy.getLifecycle().getPostStart().getExec().getCommand())
              .containsExactly("pilot-agent", "wait");
        } else {
          assertThat(proxy.getLifecycle()).isNull();
        }
      }
      String status = once.getMetadata().getAnnotations().get("sidecar.istio.io/status");
      assertThat(Fixtures.JSON.readTree(status).path("initContainers").toString())
          .contains(redirect);
      if (c.cni()) {
        PodSpec injected = new PodSpec();
        injected.setInitContainers(
            spec.getInitContainers().stream().filter(x -> PARTS.contains(x.getName())).toList());
        injected.setContainers(
            spec.getContainers().stream().filter(x -> PARTS.contains(x.getName())).toList());
        injected.setVolumes(
            spec.getVolumes().stream()
                .filter(
                    v ->
                        !Objects.requireNonNullElse(original.getSpec().getVolumes(), List.of())
                            .contains(v))
                .toList());
        assertThat(PodSecurity.restricted(injected, Map.of())).as("restricted %s", c).isEmpty();
      }
    }
  }

  private static List<String> names(List<Container> cs) {
    return cs == null ? List.of() : cs.stream().map(Container::getName).toList();
  }
}
