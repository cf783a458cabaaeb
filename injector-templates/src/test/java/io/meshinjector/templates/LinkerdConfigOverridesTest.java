package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
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
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Linkerd's per-workload configuration annotations, through the engine and the renderer as users
 * run them, against Linkerd's own golden for them (linkerd/linkerd2 b24cd40, {@code
 * cli/cmd/testdata/inject_emojivoto_deployment_config_overrides}) compared as a whole document, and
 * their namespace inheritance and precedence. The patch is applied with Parsson, an RFC 6902
 * implementation independent of the one that made it.
 */
class LinkerdConfigOverridesTest {
  private static final MeshConfig CONFIG = ConfigLoader.fromYaml(Fixtures.LINKERD_TEST_CONFIG);
  private static final PodInjector INJECTOR = Fixtures.injector();

  /** RHEL 8 nodes with kubelet 1.31: init/nft works, and native sidecars run, on all of them. */
  private static List<HasMetadata> cluster(Map<String, String> namespaceAnnotations) {
    Map<String, String> a = new HashMap<>(namespaceAnnotations);
    a.put("inject", "enabled");
    Namespace ns =
        new NamespaceBuilder()
            .withNewMetadata()
            .withName("emojivoto")
            .withAnnotations(a)
            .endMetadata()
            .build();
    return Fixtures.rhel8Cluster(ns);
  }

  /** What a user gets: the engine's decision and the patch, applied with Parsson. */
  private record Admitted(Decision decision, JsonNode template, String patch) {}

  private static Admitted inject(JsonNode deployment, Map<String, String> nsAnnotations)
      throws Exception {
    InMemoryClusterView view =
        InMemoryClusterView.of(CONFIG.engine().capabilities(), cluster(nsAnnotations));
    RuleEngine engine = new RuleEngine(CONFIG.engine(), Clock.systemUTC());
    PodTemplateRef ref = WorkloadTemplates.podTemplates(deployment, "").get(0);
    Pod pod = Injected.bind(ref);
    Decision d = engine.decide(ref.workload(), pod, view);
    JsonNode received = ref.template();
    PatchResult patch = INJECTOR.patch(received, pod, d);
    JsonNode out =
        patch.patch().isEmpty() ? received : Injected.applied(received, patch.patch().toString());
    return new Admitted(d, out, patch.patch().isEmpty() ? "" : patch.patch().toString());
  }

  private static JsonNode input() {
    return Fixtures.loadTrees("linkerd-golden/config-overrides.input.yaml").get(0);
  }

  private static JsonNode golden() {
    return normalise(
        Fixtures.loadTrees("linkerd-golden/config-overrides.golden.yaml")
            .get(0)
            .at("/spec/template"));
  }

  @Test
  void theConfigOverridesInputComesOutAsLinkerdsGolden() throws Exception {
    Admitted got = inject(input(), Map.of());
    assertThat(got.decision().summary()).isEqualTo("init/nft native-sidecar await");
    assertThat(got.decision().warnings()).isEmpty();
    JsonNode expected = golden();
    ObjectNode actual = (ObjectNode) normalise(got.template());
    withoutOursAndTheDecisions(actual, expected);
    // What the annotations drive, named, before the whole: so a failure says which one.
    JsonNode init = actual.at("/spec/initContainers/0");
    JsonNode proxy = actual.at("/spec/initContainers/1");
    assertThat(init.get("image").asText()).isEqualTo("cr.l5d.io/linkerd/proxy:override");
    assertThat(proxy.get("image").asText()).isEqualTo("cr.l5d.io/linkerd/proxy:override");
    assertThat(actual.at("/metadata/annotations/linkerd.io~1proxy-version").asText())
        .isEqualTo("override");
    assertThat(init.get("resources")).isEqualTo(expected.at("/spec/initContainers/0/resources"));
    assertThat(proxy.get("resources")).isEqualTo(expected.at("/spec/initContainers/1/resources"));
    assertThat(init.get("args").toString())
        .contains("\"4190,9998,7777,8888\"")
        .contains("\"--outbound-ports-to-ignore\",\"9999\"");
    assertThat(proxy.get("readinessProbe"))
        .isEqualTo(expected.at("/spec/initContainers/1/readinessProbe"));
    assertThat(proxy.get("livenessProbe"))
        .isEqualTo(expected.at("/spec/initContainers/1/livenessProbe"));
    assertThat(proxy.get("startupProbe"))
        .isEqualTo(expected.at("/spec/initContainers/1/startupProbe"));
    assertThat(env(proxy))
        .containsEntry("LINKERD2_PROXY_ADMIN_LISTEN_ADDR", "0.0.0.0:9998")
        .containsEntry("LINKERD2_PROXY_CORES", "1")
        .containsEntry("LINKERD2_PROXY_CORES_MAX", "1");
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void theSameAnnotationsOnTheNamespaceGiveTheSamePodWithThemWrittenOnIt() throws Exception {
    JsonNode bare = input().deepCopy();
    ObjectNode annotations = (ObjectNode) bare.at("/spec/template/metadata/annotations");
    Map<String, String> onNs = new HashMap<>();
    annotations.fields().forEachRemaining(e -> onNs.put(e.getKey(), e.getValue().asText()));
    ((ObjectNode) bare.at("/spec/template/metadata")).remove("annotations");
    Admitted fromNs = inject(bare, onNs);
    Admitted fromPod = inject(input(), Map.of());
    assertThat(fromNs.decision().trace().toString())
        .contains("config.linkerd.io/admin-port=9998 (namespace)");
    // Linkerd writes the namespace's values onto the pod, so the two pods are the same
    assertThat(normalise(fromNs.template())).isEqualTo(normalise(fromPod.template()));
  }

  @Test
  void aPodsOwnValueWinsOverItsNamespaces() throws Exception {
    Admitted got =
        inject(
            input(),
            Map.of(
                "config.linkerd.io/admin-port", "7000",
                "config.linkerd.io/proxy-log-level", "debug"));
    JsonNode proxy = got.template().at("/spec/initContainers/1");
    assertThat(env(proxy))
        .containsEntry("LINKERD2_PROXY_ADMIN_LISTEN_ADDR", "0.0.0.0:9998")
        .containsEntry("LINKERD2_PROXY_LOG", "debug,[{headers}]=off,[{request}]=off");
    assertThat(got.template().at("/metadata/annotations/config.linkerd.io~1admin-port").asText())
        .isEqualTo("9998");
    assertThat(
            got.template().at("/metadata/annotations/config.linkerd.io~1proxy-log-level").asText())
        .isEqualTo("debug");
  }

  @Test
  void logLevelOpaquePortsAndWaitBeforeExitRenderAsLinkerdsPartials() throws Exception {
    JsonNode d = input().deepCopy();
    ObjectNode a = (ObjectNode) d.at("/spec/template/metadata/annotations");
    a.removeAll();
    a.put("config.linkerd.io/proxy-log-level", "warn,linkerd=debug");
    a.put("config.linkerd.io/opaque-ports", "http,4000-4100");
    a.put("config.alpha.linkerd.io/proxy-wait-before-exit-seconds", "300");
    a.put("config.linkerd.io/proxy-enable-native-sidecar", "false");
    a.put("config.linkerd.io/proxy-gid", "2103");
    a.put(
        "config.linkerd.io/proxy-additional-env",
        "[{\"name\":\"LINKERD2_PROXY_X\",\"value\":\"1\"}]");
    Admitted got = inject(d, Map.of());
    assertThat(got.decision().summary()).isEqualTo("init/nft container await");
    JsonNode proxy = got.template().at("/spec/containers/0");
    assertThat(proxy.get("name").asText()).isEqualTo("linkerd-proxy");
    assertThat(env(proxy))
        .containsEntry("LINKERD2_PROXY_LOG", "warn,linkerd=debug,[{headers}]=off,[{request}]=off")
        .containsEntry("LINKERD2_PROXY_INBOUND_PORTS_DISABLE_PROTOCOL_DETECTION", "80,4000-4100")
        .containsEntry("LINKERD2_PROXY_X", "1");
    assertThat(proxy.at("/lifecycle/preStop/exec/command").toString())
        .isEqualTo("[\"/bin/sleep\",\"300\"]");
    assertThat(proxy.at("/lifecycle/postStart")).isNotNull();
    assertThat(proxy.at("/securityContext/runAsGroup").asInt()).isEqualTo(2103);
    JsonNode init = got.template().at("/spec/initContainers/0");
    assertThat(init.get("args").toString()).contains("\"--proxy-gid\",\"2103\"");

    // the native layout has no preStop (the kubelet stops a native sidecar after the app)
    a.put("config.linkerd.io/proxy-enable-native-sidecar", "true");
    JsonNode nativeProxy = inject(d, Map.of()).template().at("/spec/initContainers/1");
    assertThat(nativeProxy.at("/lifecycle/preStop").isMissingNode()).isTrue();
  }

  @Test
  void theDebugSidecarIsAddedLast() throws Exception {
    JsonNode d = input().deepCopy();
    ObjectNode a = (ObjectNode) d.at("/spec/template/metadata/annotations");
    a.removeAll();
    a.put("config.linkerd.io/enable-debug-sidecar", "true");
    a.put("config.linkerd.io/debug-image-version", "debug-tag");
    Admitted got = inject(d, Map.of());
    JsonNode containers = got.template().at("/spec/containers");
    JsonNode debug = containers.get(containers.size() - 1);
    assertThat(debug.get("name").asText()).isEqualTo("linkerd-debug");
    assertThat(debug.get("image").asText()).isEqualTo("cr.l5d.io/linkerd/debug:debug-tag");
    assertThat(debug.at("/readinessProbe/exec/command/0").asText()).isEqualTo("true");
    assertThat(
            got.template()
                .at("/metadata/annotations/mesh-injector.io~1injected-containers")
                .asText())
        .endsWith(",linkerd-debug");
  }

  @Test
  void aBadValueIsIgnoredWithAWarningAndTheConfigsValueRenders() throws Exception {
    JsonNode d = input().deepCopy();
    ObjectNode a = (ObjectNode) d.at("/spec/template/metadata/annotations");
    a.put("config.linkerd.io/admin-port", "nine");
    a.put("config.linkerd.io/proxy-memory-limit", "lots");
    Admitted got = inject(d, Map.of());
    assertThat(got.decision().warnings()).hasSize(2);
    JsonNode proxy = got.template().at("/spec/initContainers/1");
    assertThat(env(proxy)).containsEntry("LINKERD2_PROXY_ADMIN_LISTEN_ADDR", "0.0.0.0:4191");
    assertThat(proxy.at("/resources/limits/memory").isMissingNode()).isTrue();
    assertThat(proxy.at("/resources/limits/cpu").asText()).isEqualTo("1");
  }

  @Test
  void reinjectingAnAnnotatedPodMakesNoPatch() throws Exception {
    Admitted once = inject(input(), Map.of());
    ObjectNode again = input().deepCopy();
    ((ObjectNode) again.at("/spec")).set("template", once.template());
    Admitted twice = inject(again, Map.of());
    assertThat(twice.patch()).isEmpty();
  }

  /**
   * The parts that are ours, and the per-node decision's, each named with why; the rest of the pod
   * must be Linkerd's to the letter.
   */
  private static void withoutOursAndTheDecisions(ObjectNode actual, JsonNode expected) {
    ObjectNode ann = (ObjectNode) actual.at("/metadata/annotations");
    // ours: the one-line decision, our version, and the container list the reinvocation reads
    ann.remove(
        List.of(
            "mesh-injector.io/decision",
            "mesh-injector.io/injector-version",
            "mesh-injector.io/config-digest",
            "mesh-injector.io/revision",
            PodInjector.INJECTED_CONTAINERS));
    // created-by names the injector, ours rather than Linkerd's CLI
    assertThat(ann.remove("linkerd.io/created-by").asText()).isEqualTo("mesh-injector/test");
    ann.put(
        "linkerd.io/created-by",
        expected.at("/metadata/annotations/linkerd.io~1created-by").asText());
    ArrayNode inits = (ArrayNode) actual.at("/spec/initContainers");
    ObjectNode proxy = (ObjectNode) inits.get(1);
    // the layout decision: our native sidecar also carries the proxy-await postStart hook
    assertThat(proxy.remove("lifecycle")).isNotNull();
    // ours: the proxy drops every capability, so that a CNI-path pod meets Pod Security restricted
    assertThat(((ObjectNode) proxy.get("securityContext")).remove("capabilities")).isNotNull();
  }

  private static Map<String, String> env(JsonNode container) {
    Map<String, String> out = new HashMap<>();
    for (JsonNode e : container.path("env")) {
      out.put(e.path("name").asText(), e.path("value").asText());
    }
    return out;
  }

  // YAML reads 65534 as an int and fabric8 writes its Long fields as longs; compare JSON values.
  private static JsonNode normalise(JsonNode n) {
    try {
      return Fixtures.JSON.readTree(n.toString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @SuppressWarnings("unused")
  private static List<String> keys(JsonNode n) {
    List<String> out = new ArrayList<>();
    Iterator<String> it = n.fieldNames();
    it.forEachRemaining(out::add);
    return out;
  }
}
