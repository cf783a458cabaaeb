package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.fuzz.Fuzz;
import io.meshinjector.fuzz.JsonMutations;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The injection patch over mutated pods, for every path and proxy placement, applied as the API
 * server applies it: no exception, and any pod that comes out injected is still a valid pod
 * (Fixtures.assertValidPod: strictly typed, no duplicate container names) with the layout
 * PodInjectorTest pins: the proxy first among the containers, or as a native sidecar after the
 * redirect and before the app's init containers.
 */
class RenderFuzzTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final PodInjector INJECTOR = Fixtures.injector();

  /**
   * The corpus's distinct pods, each once: the pods the Linkerd goldens inject (13, of which
   * emojivoto-list repeats emojivoto-deployment's) and the Istio goldens' inputs (28, of which
   * daemonset repeats hello, and list hello-multi's two). The Linkerd cases render one workload
   * sixteen times and the Istio ones each input in three layouts, so a seed taken per case would
   * mostly be a copy.
   */
  static final int DISTINCT_PODS = 12 + 25;

  @Test
  void theSeedsAreTheCorpussDistinctPods() {
    assertThat(seeds().size()).as("distinct seed pods").isEqualTo(DISTINCT_PODS);
  }

  @Test
  void injectedPodsKeepTheLayout() throws Exception {
    List<byte[]> seeds = seeds();
    String proxy = Fixtures.linkerdTestConfig().proxyContainerName();
    List<PathOption> paths =
        List.of(PathOption.CNI, PathOption.INIT_NFT, PathOption.INIT_LEGACY, PathOption.INIT_PLAIN);
    AtomicInteger checked = new AtomicInteger();
    Fuzz.target("render", seeds)
        .structural(new JsonMutations(JSON, JSON))
        .run(
            in -> {
              Pod pod;
              try {
                pod = Fixtures.STRICT.readValue(in, Pod.class); // an unknown field stays unknown
              } catch (Exception e) {
                return; // the codec's to refuse
              }
              if (pod == null || pod.getSpec() == null || !validPod(pod)) {
                return; // the API server refuses it before any webhook sees it
              }
              if (holdsNullListItem(JSON.valueToTree(pod))) {
                return; // the webhook's PodValidation refuses it before the patch is made
              }
              for (PathOption path : paths) {
                for (ProxyPlacement placement : ProxyPlacement.values()) {
                  Pod out =
                      Injected.pod(
                          INJECTOR, pod, Fixtures.inject("shop/Pod/fuzz", path, placement, true));
                  if (out.equals(pod)) {
                    continue; // left as it was: a clash the renderer refuses
                  }
                  checked.incrementAndGet();
                  Pod valid =
                      Fixtures.assertValidPod(JSON.valueToTree(out), path + " " + placement);
                  List<String> init = names(valid.getSpec().getInitContainers());
                  if (placement == ProxyPlacement.NATIVE_SIDECAR) {
                    int at = init.indexOf(proxy);
                    assertThat(at)
                        .as("native sidecar among init containers")
                        .isGreaterThanOrEqualTo(0);
                    assertThat(at).as("proxy after at most the redirect").isLessThanOrEqualTo(1);
                  } else {
                    assertThat(names(valid.getSpec().getContainers())).first().isEqualTo(proxy);
                  }
                }
              }
            });
    // The seeds run first and are all injectable pods, each in every combination: a patch that
    // stopped injecting would leave them unchanged and skip every check above.
    assertThat(checked.get())
        .as("renderings that reached the checks")
        .isGreaterThanOrEqualTo(seeds.size() * paths.size() * ProxyPlacement.values().length);
  }

  /** Every pod the goldens of both flavours inject, without copies, in the corpus's order. */
  static List<byte[]> seeds() {
    Map<String, byte[]> distinct = new LinkedHashMap<>();
    Stream.concat(
            Cases.all().filter(Cases.Case::injects).flatMap(c -> c.pods().stream()),
            IstioCases.all().flatMap(c -> c.pods().stream()))
        .map(RenderFuzzTest::bytes)
        .forEach(b -> distinct.putIfAbsent(new String(b, StandardCharsets.UTF_8), b));
    return List.copyOf(distinct.values());
  }

  private static boolean validPod(Pod pod) {
    try {
      Fixtures.assertValidPod(JSON.valueToTree(pod), "input");
      return true;
    } catch (AssertionError | RuntimeException e) {
      return false; // a null container, say
    }
  }

  private static boolean holdsNullListItem(JsonNode node) {
    for (JsonNode child : node) {
      if ((node.isArray() && child.isNull()) || holdsNullListItem(child)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> names(List<Container> cs) {
    return cs == null
        ? List.of()
        : cs.stream().filter(Objects::nonNull).map(Container::getName).toList();
  }

  private static byte[] bytes(Pod p) {
    try {
      return JSON.writeValueAsBytes(p);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
