package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Our pods against Linkerd's own injector output for the same input, feature by feature: what
 * Linkerd's control plane, CNI plugin and tools rely on must be the same.
 */
class LinkerdCompatibilityTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    // Linkerd gates a native sidecar with its startupProbe and adds no postStart hook there.
    "native-init, INIT_NFT, NATIVE_SIDECAR, false",
    "native-cni, CNI, NATIVE_SIDECAR, false",
    "classic-init, INIT_NFT, CONTAINER, true",
  })
  void matchesLinkerdGolden(String golden, String path, ProxyPlacement proxy, boolean await) {
    assertMatches(
        golden(golden), Fixtures.injector(), new Plan(pathOf(path), proxy, await, false, null));
  }

  /** The pod template of Linkerd's golden for the emojivoto deployment. */
  static JsonNode golden(String golden) {
    return normalise(
        Fixtures.loadTrees("linkerd-golden/" + golden + ".golden.yaml")
            .get(0)
            .at("/spec/template"));
  }

  /**
   * The emojivoto deployment injected with {@code plan} against {@code expected}, a pod template of
   * Linkerd's (its golden, or its golden as Linkerd renders it with another value): feature by
   * feature, then whole, apart from the named differences.
   */
  static void assertMatches(JsonNode expected, PodInjector injector, Plan plan) {
    JsonNode input = Fixtures.loadTrees("fixtures/emojivoto-deployment.yaml").get(0);
    JsonNode out =
        Injected.document(
            input, Cases.NO_NAMESPACE, injector, (w, pod) -> Fixtures.inject(w, plan));
    JsonNode actual = normalise(out.at("/spec/template"));
    // The one deliberate difference: our proxy drops every capability, so that a CNI-path pod
    // meets Pod Security `restricted`; Linkerd's control plane does not read it.
    ObjectNode proxySc = (ObjectNode) proxy(actual).get("securityContext");
    assertThat(proxySc.remove("capabilities")).isEqualTo(normalise(DROP_ALL));

    JsonNode es = expected.get("spec");
    JsonNode as = actual.get("spec");
    assertThat(names(as.get("initContainers"))).isEqualTo(names(es.get("initContainers")));
    assertThat(names(as.get("containers"))).isEqualTo(names(es.get("containers")));
    for (String list : List.of("initContainers", "containers")) {
      for (int i = 0; i < es.get(list).size(); i++) {
        JsonNode e = es.get(list).get(i);
        JsonNode a = as.get(list).get(i);
        String what = list + "[" + i + "] " + e.get("name").asText();
        assertThat(names(a.get("env"))).as(what + " env names").isEqualTo(names(e.get("env")));
        assertThat(a.get("env")).as(what + " env").isEqualTo(e.get("env"));
        for (String feature :
            List.of(
                "image",
                "command",
                "args",
                "ports",
                "livenessProbe",
                "readinessProbe",
                "startupProbe",
                "lifecycle",
                "restartPolicy",
                "securityContext",
                "volumeMounts",
                "terminationMessagePolicy",
                "imagePullPolicy")) {
          assertThat(a.get(feature)).as(what + " " + feature).isEqualTo(e.get(feature));
        }
        assertThat(fieldNames(a)).as(what + " fields").isEqualTo(fieldNames(e));
      }
    }
    assertThat(as.get("volumes")).as("volumes").isEqualTo(es.get("volumes"));
    assertThat(actual.at("/metadata/labels"))
        .as("labels")
        .isEqualTo(expected.at("/metadata/labels"));

    Map<String, String> annotations = map(actual.at("/metadata/annotations"));
    Map<String, String> linkerdAnnotations = new TreeMap<>(annotations);
    linkerdAnnotations.keySet().removeIf(k -> !k.startsWith("linkerd.io/"));
    Map<String, String> expectedAnnotations = map(expected.at("/metadata/annotations"));
    assertThat(linkerdAnnotations.keySet()).isEqualTo(expectedAnnotations.keySet());
    assertThat(linkerdAnnotations.get("linkerd.io/trust-root-sha256"))
        .isEqualTo(expectedAnnotations.get("linkerd.io/trust-root-sha256"));
    assertThat(linkerdAnnotations.get("linkerd.io/proxy-version"))
        .isEqualTo(expectedAnnotations.get("linkerd.io/proxy-version"));
    // created-by names the tool that injected, so it is ours rather than Linkerd's CLI.
    assertThat(linkerdAnnotations.get("linkerd.io/created-by")).isEqualTo("mesh-injector/test");
    assertThat(annotations)
        .containsEntry("mesh-injector.io/injector-version", "test")
        .containsKey("mesh-injector.io/decision")
        .containsKey(PodInjector.INJECTED_CONTAINERS);

    // Beyond the features above, nothing else differs either.
    ObjectNode normalised = actual.deepCopy();
    ObjectNode ann = (ObjectNode) normalised.at("/metadata/annotations");
    ann.remove(
        List.of(
            "mesh-injector.io/decision",
            "mesh-injector.io/injector-version",
            "mesh-injector.io/config-digest",
            "mesh-injector.io/revision",
            PodInjector.INJECTED_CONTAINERS));
    ann.put("linkerd.io/created-by", expectedAnnotations.get("linkerd.io/created-by"));
    assertThat(normalised).isEqualTo(expected);
  }

  // YAML reads 65534 as an int and fabric8 writes its Long fields as longs; compare JSON values.
  static JsonNode normalise(JsonNode n) {
    try {
      return Fixtures.JSON.readTree(n.toString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static final JsonNode DROP_ALL =
      Fixtures.JSON.createObjectNode().set("drop", Fixtures.JSON.createArrayNode().add("ALL"));

  private static JsonNode proxy(JsonNode template) {
    for (String list : List.of("initContainers", "containers")) {
      for (JsonNode c : template.path("spec").path(list)) {
        if (c.path("name").asText().equals("linkerd-proxy")) {
          return c;
        }
      }
    }
    throw new AssertionError("no linkerd-proxy");
  }

  static PathOption pathOf(String s) {
    return switch (s) {
      case "CNI" -> PathOption.CNI;
      case "INIT_NFT" -> PathOption.INIT_NFT;
      default -> throw new IllegalArgumentException(s);
    };
  }

  private static List<String> names(JsonNode list) {
    List<String> out = new ArrayList<>();
    if (list != null) {
      list.forEach(n -> out.add(n.path("name").asText()));
    }
    return out;
  }

  private static List<String> fieldNames(JsonNode n) {
    List<String> out = new ArrayList<>();
    n.fieldNames().forEachRemaining(out::add);
    out.sort(null);
    return out;
  }

  private static Map<String, String> map(JsonNode n) {
    Map<String, String> out = new TreeMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = n.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }
}
