package io.meshinjector.templates;

import static io.meshinjector.engine.decision.PathOption.CNI;
import static io.meshinjector.engine.decision.PathOption.INIT_LEGACY;
import static io.meshinjector.engine.decision.PathOption.INIT_NFT;
import static io.meshinjector.engine.decision.PathOption.INIT_NFTABLES;
import static io.meshinjector.engine.decision.ProxyPlacement.CONTAINER;
import static io.meshinjector.engine.decision.ProxyPlacement.NATIVE_SIDECAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.Plan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A plan that redirects IPv6 too, against what istiod renders with dual-stack on: Istio's
 * dual-stack install sets {@code meshConfig.defaultConfig.proxyMetadata.ISTIO_DUAL_STACK: "true"},
 * and istiod 1.28.0's injection template (vendored under {@code istio/istiod/}) has no switch of
 * its own: the pod gets the variable wherever the template writes the ProxyConfig's proxyMetadata
 * (checked here on the template). None of istio/istio's injection goldens turns it on, so the
 * expected pods are those goldens with the variable added there; the comparison is {@link
 * IstioCompatibilityTest}'s, differences and all.
 */
class IstioDualStackTest {
  private static final String TEMPLATE = "istio/istiod/injection-template.yaml";
  private static final String RANGE = "range $key, $value := .ProxyConfig.ProxyMetadata";
  private static final String DUAL_STACK = "ISTIO_DUAL_STACK";

  /**
   * The variable reaches the pod only through the ProxyConfig: the env of the redirect container
   * and, after TRUST_DOMAIN, of istio-proxy, and PROXY_CONFIG; nothing else reads dual-stack.
   */
  @Test
  void istiodWritesProxyMetadataWhereTheExpectedPodsHaveIt() {
    String t = Fixtures.resource(TEMPLATE);
    assertThat(GoTemplateSubset.count(t, RANGE)).isEqualTo(2);
    assertThat(GoTemplateSubset.count(t, DUAL_STACK)).isZero();
    assertThat(GoTemplateSubset.count(t, "DualStack")).isZero();
    assertThat(GoTemplateSubset.count(t, "{{ protoToJSON .ProxyConfig }}")).isEqualTo(1);
    int redirect = t.indexOf("- name: istio-validation");
    int proxy = t.indexOf("- name: istio-proxy");
    int firstRange = t.indexOf(RANGE);
    int secondRange = t.indexOf(RANGE, firstRange + 1);
    assertThat(firstRange).isBetween(redirect, proxy);
    // in istio-proxy's env, after TRUST_DOMAIN and before the container's next field
    assertThat(secondRange).isGreaterThan(t.indexOf("- name: TRUST_DOMAIN", proxy));
    assertThat(t.indexOf("imagePullPolicy", secondRange))
        .isLessThan(t.indexOf("readinessProbe", secondRange));
  }

  static Stream<Arguments> goldens() {
    return Stream.of(
        Arguments.of(
            "hello.yaml",
            "hello.yaml.injected",
            new Plan(INIT_NFT, NATIVE_SIDECAR, true, true, null),
            ""),
        Arguments.of(
            "hello.yaml",
            "hello-old-version.yaml.injected",
            new Plan(INIT_LEGACY, CONTAINER, false, true, null),
            ""),
        // the pod's own proxyMetadata, merged with the mesh's
        Arguments.of(
            "traffic-annotations.yaml",
            "traffic-annotations.yaml.injected",
            new Plan(INIT_NFT, NATIVE_SIDECAR, true, true, null),
            ""),
        Arguments.of(
            "list.yaml",
            "list.yaml.injected",
            new Plan(INIT_NFT, NATIVE_SIDECAR, true, true, null),
            ""),
        // istio-validation gets it too
        Arguments.of(
            "hello.yaml",
            "hello.yaml.cni.injected",
            new Plan(CNI, NATIVE_SIDECAR, true, true, null),
            "templates: {values: {istio: {network: network1}}}\n"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("goldens")
  void rendersWhatIstiodRendersWithDualStack(
      String input, String golden, Plan plan, String config) {
    List<JsonNode> expected = new ArrayList<>();
    for (JsonNode doc : Fixtures.loadTrees(IstioCompatibilityTest.DIR + golden)) {
      JsonNode d = doc.deepCopy();
      IstioCompatibilityTest.Differences.forEachPodTemplate(d, IstioDualStackTest::dualStack);
      expected.add(d);
    }
    IstioCompatibilityTest.assertMatchesIstiod(
        input, expected, plan, config, golden + ".dualStack", PROXY_CONFIG_AS_JSON);
  }

  /**
   * Difference 12 of docs/istio.md: PROXY_CONFIG keeps the order of our merge (the mesh's keys
   * first) where istiod writes the proto's field order; compared as JSON.
   */
  private static final UnaryOperator<JsonNode> PROXY_CONFIG_AS_JSON =
      doc -> {
        IstioCompatibilityTest.Differences.forEachPodTemplate(
            doc,
            t -> {
              for (JsonNode c : IstioCompatibilityTest.Differences.containers(t)) {
                for (JsonNode e : c.path("env")) {
                  if (e.path("name").asText().equals("PROXY_CONFIG")) {
                    ((ObjectNode) e).put("value", sortedJson(e.get("value").asText()));
                  }
                }
              }
            });
        return doc;
      };

  /** What istiod adds with ISTIO_DUAL_STACK in meshConfig.defaultConfig.proxyMetadata. */
  private static void dualStack(JsonNode template) {
    for (JsonNode c : IstioCompatibilityTest.Differences.containers(template)) {
      String name = c.path("name").asText();
      ObjectNode container = (ObjectNode) c;
      if (name.equals("istio-init") || name.equals("istio-validation")) {
        // the whole env is the proxyMetadata range, sorted by key as Go ranges over a map
        ArrayNode env =
            container.has("env") ? (ArrayNode) container.get("env") : container.putArray("env");
        insertSorted(env, 0);
      } else if (name.equals("istio-proxy")) {
        // the template's range follows TRUST_DOMAIN; istiod's Go code appends the network
        // (overwriteClusterInfo) and the app probers (applyRewrite) after the template's env
        ArrayNode env = (ArrayNode) container.get("env");
        insertSorted(env, indexOf(env, "TRUST_DOMAIN") + 1);
        ObjectNode proxyConfig = (ObjectNode) entry(env, "PROXY_CONFIG");
        proxyConfig.put("value", withDualStack(proxyConfig.get("value").asText()));
      }
    }
  }

  /** Appended to istio-proxy's env by istiod's Go code after the template's. */
  private static final List<String> APPENDED =
      List.of("ISTIO_META_NETWORK", "ISTIO_KUBE_APP_PROBERS");

  /**
   * ISTIO_DUAL_STACK among the proxyMetadata entries from {@code from} on (up to those istiod
   * appends after the template's env), in key order as Go ranges over a map.
   */
  private static void insertSorted(ArrayNode env, int from) {
    int at = from;
    while (at < env.size()
        && !APPENDED.contains(env.get(at).path("name").asText())
        && env.get(at).path("name").asText().compareTo(DUAL_STACK) < 0) {
      at++;
    }
    ObjectNode e = Fixtures.JSON.createObjectNode().put("name", DUAL_STACK).put("value", "true");
    env.insert(at, e);
  }

  private static String withDualStack(String json) {
    try {
      ObjectNode pc = (ObjectNode) Fixtures.JSON.readTree(json);
      ObjectNode md = pc.has("proxyMetadata") ? (ObjectNode) pc.get("proxyMetadata") : null;
      if (md == null) {
        md = pc.putObject("proxyMetadata");
      }
      md.put(DUAL_STACK, "true");
      return pc.toString() + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sortedJson(String json) {
    try {
      return sorted(Fixtures.JSON.readTree(json)).toString() + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode sorted(JsonNode n) {
    if (!n.isObject()) {
      return n;
    }
    Map<String, JsonNode> byKey = new TreeMap<>();
    n.fields().forEachRemaining(e -> byKey.put(e.getKey(), sorted(e.getValue())));
    ObjectNode out = Fixtures.JSON.createObjectNode();
    byKey.forEach(out::set);
    return out;
  }

  private static int indexOf(ArrayNode env, String name) {
    for (int i = 0; i < env.size(); i++) {
      if (env.get(i).path("name").asText().equals(name)) {
        return i;
      }
    }
    throw new AssertionError("no env " + name);
  }

  private static JsonNode entry(ArrayNode env, String name) {
    return env.get(indexOf(env, name));
  }

  /**
   * As in istiod, the pod's own ProxyConfig lies over the mesh's: a pod that turns dual-stack off
   * in proxy.istio.io/config keeps it off, on the redirect container and the proxy alike.
   */
  @Test
  void aPodsOwnProxyMetadataWins() {
    Pod pod =
        Injected.bind(
            WorkloadTemplates.podTemplates(
                    Fixtures.loadTrees(IstioCompatibilityTest.DIR + "hello.yaml").get(0),
                    IstioCases.NAMESPACE)
                .get(0));
    Map<String, String> annotations = new TreeMap<>();
    if (pod.getMetadata().getAnnotations() != null) {
      annotations.putAll(pod.getMetadata().getAnnotations());
    }
    annotations.put("proxy.istio.io/config", "proxyMetadata: {ISTIO_DUAL_STACK: \"false\"}");
    pod.getMetadata().setAnnotations(annotations);
    Pod injected =
        Injected.pod(
            IstioCases.injector(),
            pod,
            Fixtures.inject("hello", new Plan(INIT_NFTABLES, NATIVE_SIDECAR, true, true, null)));
    for (String name : List.of("istio-init", "istio-proxy")) {
      Container c =
          injected.getSpec().getInitContainers().stream()
              .filter(x -> x.getName().equals(name))
              .findFirst()
              .orElseThrow();
      assertThat(c.getEnv())
          .as(name)
          .filteredOn(e -> e.getName().equals(DUAL_STACK))
          .extracting(EnvVar::getValue)
          .containsExactly("false");
    }
  }

  /** An IPv4 plan's pod carries no dual-stack switch, and ours are otherwise the same pod. */
  @Test
  void onlyTheIpv6PlansPodsCarryIt() {
    JsonNode in = Fixtures.loadTrees(IstioCompatibilityTest.DIR + "hello.yaml").get(0);
    PodInjector injector = IstioCases.injector();
    Plan v4 = new Plan(INIT_NFT, NATIVE_SIDECAR, true, false, null);
    Plan v6 = new Plan(INIT_NFT, NATIVE_SIDECAR, true, true, null);
    // the same injector renders both, so a cached rendering must not serve the other family
    JsonNode six =
        Injected.document(in, IstioCases.NAMESPACE, injector, (w, p) -> Fixtures.inject(w, v6));
    JsonNode four =
        Injected.document(in, IstioCases.NAMESPACE, injector, (w, p) -> Fixtures.inject(w, v4));
    JsonNode sixAgain =
        Injected.document(in, IstioCases.NAMESPACE, injector, (w, p) -> Fixtures.inject(w, v6));
    assertThat(four.toString()).doesNotContain(DUAL_STACK);
    assertThat(six.toString()).contains(DUAL_STACK);
    assertThat(sixAgain).isEqualTo(six);
  }

  /**
   * Set in templates.values, the switch would reach the pods of IPv4 plans too, and the rendering
   * would no longer follow the plan: the config is refused, naming both keys.
   */
  @Test
  void theSwitchSetMeshWideIsRefused() {
    String config =
        IstioCases.CONFIG
            + "templates: {values: {istio: {proxyConfig: {proxyMetadata: {ISTIO_DUAL_STACK:"
            + " \"true\"}}}}}\n";
    assertThatThrownBy(() -> TemplateConfig.from(ConfigLoader.fromYaml(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("templates.values.istio.proxyConfig.proxyMetadata.ISTIO_DUAL_STACK")
        .hasMessageContaining(
            "templates.ipv6Values.istio.proxyConfig.proxyMetadata.ISTIO_DUAL_STACK")
        .hasMessageContaining("proxyInit.ipv6");
  }
}
