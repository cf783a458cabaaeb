package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.templates.WorkloadTemplates.PodTemplateRef;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Linkerd's proxy-injector webhook tests that carry config annotations (linkerd/linkerd2 b24cd40,
 * {@code controller/proxy-injector/webhook_test.go} and its {@code fake/data}, copied unchanged
 * under {@code linkerd-webhook/}). Those goldens were made with an older proxy-init and the {@code
 * dev-undefined} version, so they are not compared whole: Linkerd's expected patch and ours are
 * each applied with Parsson to the same pod, and what the annotations drive is compared between the
 * two pods.
 */
class LinkerdWebhookGoldensTest {
  private static final String DIR = "linkerd-webhook/";

  /**
   * Linkerd's fake data puts its pods in kube-public, which our default config never injects; its
   * test hands the pods to the injector's patch function, past any namespace filter, so here the
   * engine's list is the default's without kube-public.
   */
  private static final MeshConfig CONFIG =
      ConfigLoader.fromYaml(
          Fixtures.LINKERD_TEST_CONFIG
              + "injection:\n"
              + "  excludedNamespaces: [kube-system, kube-node-lease, mesh-injector, linkerd]\n");

  private static final PodInjector INJECTOR = Fixtures.injector();

  /**
   * The namespace annotations of webhook_test.go's {@code confNsWithConfigAnnotations()}: Linkerd's
   * test hands them to the injector in code rather than in a data file, so they are spelled here.
   */
  private static final Map<String, String> NS_CONFIG_ANNOTATIONS =
      Map.of(
          "linkerd.io/inject", "enabled",
          "config.linkerd.io/skip-outbound-ports", "34567",
          "config.alpha.linkerd.io/proxy-wait-before-exit-seconds", "300",
          "config.linkerd.io/invalid-key", "invalid-value");

  /** The two pods, each with its injector's patch applied by Parsson, and our decision. */
  private record Both(JsonNode linkerd, JsonNode ours, Decision decision) {
    JsonNode linkerdProxy() {
      return container(linkerd, "linkerd-proxy");
    }

    JsonNode oursProxy() {
      return container(ours, "linkerd-proxy");
    }
  }

  /**
   * Linkerd's namespace of a data file, with this injector's own opt-in (the engine injects only
   * namespaces that ask with {@code inject: enabled}; Linkerd's test gives its injector the
   * namespace's annotations directly) and {@code extra} annotations.
   */
  private static Namespace namespace(String file, Map<String, String> extra) throws Exception {
    Namespace ns =
        Fixtures.JSON.treeToValue(Fixtures.loadTrees(DIR + file).get(0), Namespace.class);
    Map<String, String> a = new LinkedHashMap<>(ns.getMetadata().getAnnotations());
    a.putAll(extra);
    a.put("inject", "enabled");
    return new NamespaceBuilder(ns).editMetadata().withAnnotations(a).endMetadata().build();
  }

  /**
   * The pod as the API server holds it: annotation values are strings. Linkerd's data writes {@code
   * enable-debug-sidecar: true} unquoted, which its sigs.k8s.io/yaml reads into the string field as
   * "true".
   */
  private static JsonNode pod(String file) {
    JsonNode pod = Fixtures.loadTrees(DIR + file).get(0);
    JsonNode a = pod.at("/metadata/annotations");
    if (a instanceof ObjectNode o) {
      List<String> keys = new ArrayList<>();
      o.fieldNames().forEachRemaining(keys::add);
      keys.forEach(k -> o.put(k, o.get(k).asText()));
    }
    return pod;
  }

  /**
   * @param linkerdPatch Linkerd's expected patch, or null where its test expects none
   */
  private static Both inject(String podFile, String linkerdPatch, Namespace ns) throws Exception {
    JsonNode received = pod(podFile);
    JsonNode linkerd =
        linkerdPatch == null
            ? received
            : Injected.applied(received, Fixtures.resource(DIR + linkerdPatch));
    InMemoryClusterView view =
        InMemoryClusterView.of(CONFIG.engine().capabilities(), Fixtures.rhel8Cluster(ns));
    RuleEngine engine = new RuleEngine(CONFIG.engine(), Clock.systemUTC());
    // a pod that names no namespace is in the request's, whose annotations the injector is given
    PodTemplateRef ref =
        WorkloadTemplates.podTemplates(received, ns.getMetadata().getName()).get(0);
    Pod pod = Injected.bind(ref);
    Decision d = engine.decide(ref.workload(), pod, view);
    PatchResult patch = INJECTOR.patch(received, pod, d);
    assertThat(patch.patch().isEmpty()).as("our injector patches %s: %s", podFile, d).isFalse();
    JsonNode ours = Injected.applied(received, patch.patch().toString());
    return new Both(linkerd, ours, d);
  }

  @Test
  void theLogLevelAnnotationGivesLinkerdsProxyLog() throws Exception {
    Both got =
        inject(
            "pod-inject-enabled-log-level.yaml",
            "pod-log-level.json",
            namespace("namespace-inject-enabled.yaml", Map.of()));
    assertThat(got.decision().warnings()).isEmpty();
    assertThat(env(got.oursProxy()).get("LINKERD2_PROXY_LOG"))
        .isEqualTo(env(got.linkerdProxy()).get("LINKERD2_PROXY_LOG"))
        .contains("linkerd[name=\"inbound\"]=trace");
  }

  @Test
  void theCpuRequestAndRatioGiveLinkerdsCoresAndResources() throws Exception {
    Both got =
        inject(
            "pod-inject-enabled-cpu-ratio.yaml",
            "pod-cpu-ratio.json",
            namespace("namespace-inject-enabled.yaml", Map.of()));
    assertThat(got.decision().warnings()).isEmpty();
    // the worker threads: CORES and CORES_MIN from the request, the ratio, and no CORES_MAX
    assertThat(cores(got.oursProxy()))
        .isEqualTo(cores(got.linkerdProxy()))
        .containsKey("LINKERD2_PROXY_CORES_MAX_RATIO");
    assertThat(got.oursProxy().get("resources"))
        .isEqualTo(got.linkerdProxy().get("resources"))
        .isNotNull();
    // Linkerd's proxy-init takes the proxy's resources
    assertThat(container(got.ours, "linkerd-init").get("resources"))
        .isEqualTo(container(got.linkerd, "linkerd-init").get("resources"));
  }

  @Test
  void theNamespacesConfigAnnotationsAreWrittenOntoThePodAndApplied() throws Exception {
    Both got =
        inject(
            "pod-inject-enabled.yaml",
            "pod-with-ns-annotations.patch.json",
            namespace("namespace-inject-enabled.yaml", NS_CONFIG_ANNOTATIONS));
    // the valid ones written onto the pod, the invalid key left out (no value of ours to warn of)
    assertThat(configAnnotations(got.ours))
        .isEqualTo(configAnnotations(got.linkerd))
        .containsKeys(
            "config.linkerd.io/skip-outbound-ports",
            "config.alpha.linkerd.io/proxy-wait-before-exit-seconds");
    // skip-outbound-ports replaces proxy-init's outbound ports to ignore
    assertThat(argAfter(container(got.ours, "linkerd-init"), "--outbound-ports-to-ignore"))
        .isEqualTo(argAfter(container(got.linkerd, "linkerd-init"), "--outbound-ports-to-ignore"))
        .isEqualTo("34567");
    // wait-before-exit: Linkerd's chart gives no preStop to a native sidecar (the kubelet stops it
    // after the app's containers); the same layout here, so the same lifecycle hook
    assertThat(layout(got.ours)).isEqualTo(layout(got.linkerd)).isEqualTo("initContainers");
    assertThat(got.oursProxy().at("/lifecycle/preStop"))
        .isEqualTo(got.linkerdProxy().at("/lifecycle/preStop"));
  }

  @Test
  void theDebugSidecarIsLinkerdsAndLast() throws Exception {
    Both got =
        inject(
            "pod-with-debug-enabled.yaml",
            "pod-with-debug.patch.json",
            namespace("namespace-inject-enabled.yaml", Map.of()));
    assertThat(got.decision().warnings()).isEmpty();
    JsonNode linkerd = last(got.linkerd);
    JsonNode ours = last(got.ours);
    // the tag is each injector's own version (Linkerd's dev-undefined): the pod's proxy-version
    assertThat(ours.get("image").asText())
        .isEqualTo("cr.l5d.io/linkerd/debug:" + proxyVersion(got.ours));
    assertThat(linkerd.get("image").asText())
        .isEqualTo("cr.l5d.io/linkerd/debug:" + proxyVersion(got.linkerd));
    assertThat(withoutImage(ours)).isEqualTo(withoutImage(linkerd));
    assertThat(got.ours.at("/spec/containers").size())
        .isEqualTo(got.linkerd.at("/spec/containers").size());
  }

  @Test
  void aCustomDebugImageAndTagAreLinkerds() throws Exception {
    Both got =
        inject(
            "pod-with-custom-debug-tag.yaml",
            "pod-with-custom-debug.patch.json",
            namespace("namespace-inject-enabled.yaml", Map.of()));
    assertThat(got.decision().warnings()).isEmpty();
    assertThat(last(got.ours)).isEqualTo(last(got.linkerd));
    assertThat(last(got.ours).get("image").asText())
        .isEqualTo("cr.l5d.io/linkerd/debug:edge-24.2.4");
  }

  /** webhook_test.go's TestGetAnnotationPatch table for pods; null: Linkerd makes no patch. */
  static Stream<Arguments> opaquePorts() {
    return Stream.of(
        Arguments.of(
            "pod without opaque ports and namespace with",
            "pod-without-opaque-ports.yaml",
            "namespace-with-opaque-ports.yaml",
            "annotation.patch.json"),
        Arguments.of(
            "pod with opaque ports and namespace with",
            "pod-with-opaque-ports.yaml",
            "namespace-with-opaque-ports.yaml",
            null),
        Arguments.of(
            "pod with opaque ports and namespace without",
            "pod-with-opaque-ports.yaml",
            "namespace-inject-enabled.yaml",
            null),
        Arguments.of(
            "pod without opaque ports and namespace without",
            "pod-without-opaque-ports.yaml",
            "namespace-inject-enabled.yaml",
            null),
        Arguments.of(
            "pod opaque ports are filtered",
            "filter-pod-opaque-ports.yaml",
            "namespace-inject-enabled.yaml",
            "filtered-pod-opaque-ports.json"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void opaquePorts(String name, String podFile, String nsFile, String linkerdPatch)
      throws Exception {
    Both got = inject(podFile, linkerdPatch, namespace(nsFile, Map.of()));
    String key = "config.linkerd.io/opaque-ports";
    JsonNode theirs = got.linkerd.at("/metadata/annotations").get(key);
    JsonNode ours = got.ours.at("/metadata/annotations").get(key);
    assertThat(ours).as("the pod's opaque-ports annotation").isEqualTo(theirs);
    // Linkerd renders the proxy from the pod's annotations once the webhook has added these, so the
    // proxy's opaque ports are the annotation's, or without one its chart's default list (as its
    // pod-log-level.json golden renders it)
    String expected =
        theirs != null
            ? theirs.asText()
            : env(linkerdDefaultProxy())
                .get("LINKERD2_PROXY_INBOUND_PORTS_DISABLE_PROTOCOL_DETECTION");
    assertThat(env(got.oursProxy()))
        .containsEntry("LINKERD2_PROXY_INBOUND_PORTS_DISABLE_PROTOCOL_DETECTION", expected);
  }

  /** Linkerd's proxy for a pod with no opaque-ports annotation (its log-level golden). */
  private static JsonNode linkerdDefaultProxy() throws Exception {
    JsonNode pod = pod("pod-inject-enabled-log-level.yaml");
    return container(
        Injected.applied(pod, Fixtures.resource(DIR + "pod-log-level.json")), "linkerd-proxy");
  }

  private static JsonNode container(JsonNode pod, String name) {
    for (String list : List.of("initContainers", "containers")) {
      for (JsonNode c : pod.path("spec").path(list)) {
        if (name.equals(c.path("name").asText())) {
          return c;
        }
      }
    }
    throw new AssertionError("no container " + name + " in " + pod);
  }

  /** Where the proxy is: a native sidecar (initContainers) or a regular container. */
  private static String layout(JsonNode pod) {
    for (JsonNode c : pod.at("/spec/initContainers")) {
      if ("linkerd-proxy".equals(c.path("name").asText())) {
        return "initContainers";
      }
    }
    return "containers";
  }

  private static JsonNode last(JsonNode pod) {
    JsonNode containers = pod.at("/spec/containers");
    return containers.get(containers.size() - 1);
  }

  private static String proxyVersion(JsonNode pod) {
    return pod.at("/metadata/annotations/linkerd.io~1proxy-version").asText();
  }

  private static JsonNode withoutImage(JsonNode container) {
    ObjectNode c = container.deepCopy();
    c.remove("image");
    return c;
  }

  private static Map<String, String> configAnnotations(JsonNode pod) {
    Map<String, String> out = new TreeMap<>();
    pod.at("/metadata/annotations")
        .fields()
        .forEachRemaining(
            e -> {
              if (e.getKey().startsWith("config.")) {
                out.put(e.getKey(), e.getValue().asText());
              }
            });
    return out;
  }

  private static String argAfter(JsonNode container, String flag) {
    JsonNode args = container.path("args");
    for (int i = 0; i + 1 < args.size(); i++) {
      if (flag.equals(args.get(i).asText())) {
        return args.get(i + 1).asText();
      }
    }
    return null;
  }

  private static Map<String, String> env(JsonNode container) {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode e : container.path("env")) {
      out.put(e.path("name").asText(), e.path("value").asText());
    }
    return out;
  }

  private static Map<String, String> cores(JsonNode container) {
    Map<String, String> out = new TreeMap<>();
    env(container)
        .forEach(
            (k, v) -> {
              if (k.startsWith("LINKERD2_PROXY_CORES")) {
                out.put(k, v);
              }
            });
    return out;
  }
}
