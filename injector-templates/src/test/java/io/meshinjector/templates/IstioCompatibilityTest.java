package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Our Istio pods against what istiod 1.28 renders for the same input (the facts of Istio's own
 * injection goldens, written down in {@code istio/reference/}), layout by layout. Every difference
 * that remains is applied here by name, and each is listed with its reason in docs/istio.md; any
 * other difference fails.
 */
class IstioCompatibilityTest {
  private static final PodInjector INJECTOR = IstioCases.injector();
  private static final JsonNode POD = Fixtures.loadTrees("istio/reference/common-pod.yaml").get(0);
  private static final JsonNode PROXY =
      Fixtures.loadTrees("istio/reference/common-proxy.yaml").get(0);

  enum Layout {
    INIT(IstioCases.Layout.INIT, "init"),
    CNI(IstioCases.Layout.CNI_PATH, "cni"),
    NATIVE(IstioCases.Layout.NATIVE, "native");

    final IstioCases.Layout ours;
    final String id;

    Layout(IstioCases.Layout ours, String id) {
      this.ours = ours;
      this.id = id;
    }
  }

  @ParameterizedTest
  @EnumSource(Layout.class)
  void matchesIstiodApartFromTheListedDifferences(Layout layout) throws Exception {
    IstioCases.Case c = new IstioCases.Case("hello", layout.ours);
    JsonNode out =
        WorkloadTemplates.inject(c.inputs().get(0), IstioCases.NAMESPACE, INJECTOR, c::decide);
    ObjectNode ours = normalise(out.at("/spec/template"));
    ObjectNode istio = expected(layout);

    // 1. Our own annotations: the decision and the injector's version.
    ObjectNode annotations = (ObjectNode) ours.at("/metadata/annotations");
    assertThat(annotations.remove("mesh-injector.io/decision")).isNotNull();
    assertThat(annotations.remove("mesh-injector.io/injector-version")).isNotNull();
    // 2. seccompProfile RuntimeDefault on istio-proxy and istio-validation, for Pod Security
    //    `restricted` on the CNI path.
    for (JsonNode ct : containers(ours)) {
      if (List.of("istio-proxy", "istio-validation").contains(ct.path("name").asText())) {
        assertThat(((ObjectNode) ct.get("securityContext")).remove("seccompProfile"))
            .isEqualTo(Fixtures.JSON.readTree("{\"type\":\"RuntimeDefault\"}"));
      }
    }
    // 3. istiod writes `-x ""` when no range is excluded; we leave the empty pair out.
    for (JsonNode ct : containers(istio)) {
      if (ct.path("name").asText().startsWith("istio-") && ct.has("args")) {
        ArrayNode args = (ArrayNode) ct.get("args");
        for (int i = 0; i < args.size() - 1; i++) {
          if (args.get(i).asText().equals("-x") && args.get(i + 1).asText().isEmpty()) {
            args.remove(i + 1);
            args.remove(i);
          }
        }
      }
    }
    // 4. istio-ca-crl (an optional ConfigMap mount of the CA's revocation list, in Istio's
    //    newest goldens) is not rendered.
    removeNamed((ArrayNode) istio.at("/spec/volumes"), "istio-ca-crl");
    for (JsonNode ct : containers(istio)) {
      if (ct.has("volumeMounts")) {
        removeNamed((ArrayNode) ct.get("volumeMounts"), "istio-ca-crl");
      }
    }
    ObjectNode status =
        (ObjectNode)
            Fixtures.JSON.readTree(
                istio.at("/metadata/annotations/sidecar.istio.io~1status").asText());
    removeText((ArrayNode) status.get("volumes"), "istio-ca-crl");
    ((ObjectNode) istio.at("/metadata/annotations"))
        .put("sidecar.istio.io/status", status.toString());

    assertThat(Fixtures.JSON.readTree(annotations.get("sidecar.istio.io/status").asText()))
        .as("status annotation")
        .isEqualTo(status);
    annotations.remove("sidecar.istio.io/status");
    ((ObjectNode) istio.at("/metadata/annotations")).remove("sidecar.istio.io/status");
    assertThat(ours.get("metadata")).isEqualTo(istio.get("metadata"));
    assertThat(names(ours.at("/spec/initContainers")))
        .isEqualTo(names(istio.at("/spec/initContainers")));
    assertThat(names(ours.at("/spec/containers"))).isEqualTo(names(istio.at("/spec/containers")));
    for (String list : List.of("initContainers", "containers")) {
      for (int i = 0; i < istio.at("/spec/" + list).size(); i++) {
        JsonNode e = istio.at("/spec/" + list).get(i);
        JsonNode a = ours.at("/spec/" + list).get(i);
        Iterator<String> fields = e.fieldNames();
        while (fields.hasNext()) {
          String f = fields.next();
          assertThat(a.get(f)).as(layout + " " + e.get("name") + " " + f).isEqualTo(e.get(f));
        }
        assertThat(a).as(layout + " " + e.get("name")).isEqualTo(e);
      }
    }
    assertThat(ours.at("/spec/volumes")).isEqualTo(istio.at("/spec/volumes"));
    assertThat(ours).isEqualTo(istio);
  }

  /** The pod template istiod renders for {@code hello} in this layout, from the facts. */
  private static ObjectNode expected(Layout layout) {
    JsonNode l = POD.at("/layouts/" + layout.id);
    ObjectNode t = Fixtures.JSON.createObjectNode();
    ObjectNode meta = t.putObject("metadata");
    meta.set("labels", POD.get("labels").deepCopy());
    ObjectNode annotations = meta.putObject("annotations");
    annotations.setAll((ObjectNode) POD.get("annotations").deepCopy());
    ObjectNode status = Fixtures.JSON.createObjectNode();
    status.set("initContainers", l.at("/status/initContainers"));
    status.set("containers", l.at("/status/containers"));
    ArrayNode volumes = status.putArray("volumes");
    POD.get("volumes").forEach(v -> volumes.add(v.get("name").asText()));
    status.putNull("imagePullSecrets");
    status.put("revision", "default");
    annotations.put("sidecar.istio.io/status", status.toString());

    ObjectNode proxy = PROXY.deepCopy();
    proxy.set("lifecycle", l.get("lifecycle"));
    boolean cni = layout == Layout.CNI;
    ObjectNode redirect = Fixtures.JSON.createObjectNode();
    ArrayNode args = POD.get("initArgs").deepCopy();
    if (cni) {
      POD.get("validationExtraArgs").forEach(args::add);
    }
    redirect.set("args", args);
    redirect.put("image", PROXY.get("image").asText());
    redirect.put("name", cni ? "istio-validation" : "istio-init");
    redirect.set("resources", POD.get("initResources"));
    redirect.set(
        "securityContext", POD.get(cni ? "validationSecurityContext" : "initSecurityContext"));

    ObjectNode spec = t.putObject("spec");
    ArrayNode containers = spec.putArray("containers");
    ArrayNode inits = spec.putArray("initContainers");
    if (layout == Layout.NATIVE) {
      proxy.put("restartPolicy", "Always");
      containers.add(POD.get("app"));
      inits.add(redirect);
      inits.add(proxy);
    } else {
      containers.add(proxy);
      containers.add(POD.get("app"));
      inits.add(redirect);
    }
    spec.set("volumes", POD.get("volumes").deepCopy());
    return normalise(t);
  }

  /** Through JSON text, so numbers compare by value whatever node type the reader chose. */
  private static ObjectNode normalise(JsonNode n) {
    try {
      return (ObjectNode) Fixtures.JSON.readTree(Fixtures.JSON.writeValueAsString(n));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<JsonNode> containers(JsonNode t) {
    List<JsonNode> out = new java.util.ArrayList<>();
    t.at("/spec/initContainers").forEach(out::add);
    t.at("/spec/containers").forEach(out::add);
    return out;
  }

  private static List<String> names(JsonNode list) {
    List<String> out = new java.util.ArrayList<>();
    list.forEach(c -> out.add(c.path("name").asText()));
    return out;
  }

  private static void removeNamed(ArrayNode list, String name) {
    for (int i = list.size() - 1; i >= 0; i--) {
      if (list.get(i).path("name").asText().equals(name)) {
        list.remove(i);
      }
    }
  }

  private static void removeText(ArrayNode list, String text) {
    for (int i = list.size() - 1; i >= 0; i--) {
      if (list.get(i).asText().equals(text)) {
        list.remove(i);
      }
    }
  }
}
