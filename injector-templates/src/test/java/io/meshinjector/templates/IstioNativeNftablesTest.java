package io.meshinjector.templates;

import static io.meshinjector.engine.decision.PathOption.CNI;
import static io.meshinjector.engine.decision.PathOption.INIT_NFT;
import static io.meshinjector.engine.decision.PathOption.INIT_NFTABLES;
import static io.meshinjector.engine.decision.ProxyPlacement.CONTAINER;
import static io.meshinjector.engine.decision.ProxyPlacement.NATIVE_SIDECAR;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.engine.decision.Plan;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code init/nftables} against istiod's own output for {@code values.global.nativeNftables: true},
 * which none of istio/istio 1.28.0's injection goldens sets. The expected pods are those goldens
 * with the redirect container's arguments after the log level rendered from istiod 1.28.0's
 * injection template (vendored under {@code istio/istiod/}) with that value, the chart's defaults
 * otherwise; rendered with the default ({@code false}) the same lines must give the goldens' own
 * arguments first. The comparison is {@link IstioCompatibilityTest}'s, differences and all.
 */
class IstioNativeNftablesTest {
  private static final String DIR = "istio/istiod/";
  private static final String TEMPLATE = DIR + "injection-template.yaml";
  private static final String NATIVE_NFTABLES = ".Values.global.nativeNftables";

  /** The lines after {@code --log_output_level} of istio-init / istio-validation. */
  private static String tail() {
    return GoTemplateSubset.region(
        Fixtures.resource(TEMPLATE),
        "{{ if .Values.global.logAsJson -}}",
        "{{with .Values.global.imagePullPolicy }}imagePullPolicy");
  }

  /**
   * The values istiod renders its template with: the chart's defaults, scoped as its injector
   * ConfigMap scopes them ({@code pilot} is the chart's {@code cni} and {@code env}).
   */
  private static JsonNode values(boolean nativeNftables, boolean cni) {
    JsonNode chart =
        Fixtures.loadTrees(DIR + "values.yaml").get(0).get("_internal_defaults_do_not_set");
    ObjectNode v = Fixtures.JSON.createObjectNode();
    v.set("global", chart.get("global").deepCopy());
    v.set("sidecarInjectorWebhook", chart.get("sidecarInjectorWebhook").deepCopy());
    ObjectNode pilot = v.putObject("pilot");
    pilot.set("cni", chart.get("cni").deepCopy());
    pilot.set("env", chart.get("env").deepCopy());
    ((ObjectNode) v.get("global")).put("nativeNftables", nativeNftables);
    ((ObjectNode) pilot.get("cni")).put("enabled", cni);
    return v;
  }

  /** The arguments istiod's template gives after the log level. */
  private static JsonNode rendered(boolean nativeNftables, boolean cni) {
    try {
      JsonNode t =
          Fixtures.YAML_IN.readTree(GoTemplateSubset.render(tail(), values(nativeNftables, cni)));
      return t == null || t.isNull() || t.isMissingNode() ? Fixtures.JSON.createArrayNode() : t;
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void theTemplateReadsNativeNftablesOnlyInTheRedirectContainersArguments() {
    assertThat(GoTemplateSubset.count(Fixtures.resource(TEMPLATE), NATIVE_NFTABLES)).isEqualTo(1);
    assertThat(GoTemplateSubset.count(tail(), NATIVE_NFTABLES)).isEqualTo(1);
    // .Values.pilot is the chart's cni and env, as values() builds it
    assertThat(Fixtures.resource(DIR + "istiod-injector-configmap.yaml"))
        .contains("$pilotVals := pick .Values \"cni\" \"env\"");
    assertThat(rendered(true, false)).containsExactly(text("--native-nftables"));
    assertThat(rendered(true, true))
        .containsExactly(
            text("--run-validation"), text("--skip-rule-apply"), text("--native-nftables"));
  }

  static Stream<Arguments> goldens() {
    String cniConfig = "templates: {values: {istio: {network: network1, nativeNftables: true}}}\n";
    return Stream.of(
        Arguments.of(
            "hello.yaml",
            "hello.yaml.injected",
            new Plan(INIT_NFTABLES, NATIVE_SIDECAR, true, false, null),
            ""),
        // native sidecars off: a regular container, no hold by default in istiod
        Arguments.of(
            "hello.yaml",
            "hello-old-version.yaml.injected",
            new Plan(INIT_NFTABLES, CONTAINER, false, false, null),
            ""),
        // the pod's capture annotations stay before the log level
        Arguments.of(
            "traffic-annotations.yaml",
            "traffic-annotations.yaml.injected",
            new Plan(INIT_NFTABLES, NATIVE_SIDECAR, true, false, null),
            ""),
        // two pods in a List
        Arguments.of(
            "list.yaml",
            "list.yaml.injected",
            new Plan(INIT_NFTABLES, NATIVE_SIDECAR, true, false, null),
            ""),
        // the CNI path: istio-validation, the istio-cni plugin installed with nativeNftables
        Arguments.of(
            "hello.yaml",
            "hello.yaml.cni.injected",
            new Plan(CNI, NATIVE_SIDECAR, true, false, null),
            cniConfig));
  }

  /** The goldens' own arguments after the log level are the template's with the default. */
  @ParameterizedTest(name = "{1}")
  @MethodSource("goldens")
  void withTheDefaultTheLinesRenderTheGoldensArguments(
      String input, String golden, Plan plan, String config) {
    boolean cni = plan.path().equals(CNI);
    List<JsonNode> tails = new ArrayList<>();
    for (JsonNode doc : Fixtures.loadTrees(IstioCompatibilityTest.DIR + golden)) {
      forEachRedirectContainer(doc, c -> tails.add(afterLogLevel(c.get("args"))));
    }
    assertThat(tails).isNotEmpty().allMatch(t -> t.equals(rendered(false, cni)));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("goldens")
  void rendersWhatIstiodRendersWithNativeNftables(
      String input, String golden, Plan plan, String config) {
    boolean cni = plan.path().equals(CNI);
    List<JsonNode> expected = new ArrayList<>();
    for (JsonNode doc : Fixtures.loadTrees(IstioCompatibilityTest.DIR + golden)) {
      JsonNode d = doc.deepCopy();
      forEachRedirectContainer(
          d,
          c -> {
            ArrayNode args = (ArrayNode) c.get("args");
            int at = logLevel(args) + 1;
            while (args.size() > at) {
              args.remove(at);
            }
            args.addAll((ArrayNode) rendered(true, cni));
          });
      expected.add(d);
    }
    IstioCompatibilityTest.assertMatchesIstiod(
        input, expected, plan, config, golden + ".nativeNftables");
  }

  /**
   * The engine's nft verdict is about iptables-nft, not about nftables itself: on init/nft
   * istio-init is left to detect its backend, as istiod renders it without nativeNftables, even
   * where the operator set nativeNftables for the istio-cni plugin.
   */
  @Test
  void initNftIsNotPinnedToNativeNftables() {
    IstioCompatibilityTest.assertMatchesIstiod(
        "hello.yaml",
        Fixtures.loadTrees(IstioCompatibilityTest.DIR + "hello.yaml.injected"),
        new Plan(INIT_NFT, NATIVE_SIDECAR, true, false, null),
        "templates: {values: {istio: {nativeNftables: true}}}\n",
        "hello.yaml.injected.initNft");
  }

  /** Every istio-init or istio-validation of the document's pod templates. */
  private static void forEachRedirectContainer(JsonNode n, Consumer<ObjectNode> f) {
    if (n.isObject()) {
      for (JsonNode c : n.path("initContainers")) {
        String name = c.path("name").asText();
        if (name.equals("istio-init") || name.equals("istio-validation")) {
          f.accept((ObjectNode) c);
        }
      }
      n.forEach(child -> forEachRedirectContainer(child, f));
    } else if (n.isArray()) {
      n.forEach(child -> forEachRedirectContainer(child, f));
    }
  }

  private static int logLevel(JsonNode args) {
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).asText().startsWith("--log_output_level=")) {
        return i;
      }
    }
    throw new AssertionError("no --log_output_level in " + args);
  }

  private static JsonNode afterLogLevel(JsonNode args) {
    ArrayNode out = Fixtures.JSON.createArrayNode();
    for (int i = logLevel(args) + 1; i < args.size(); i++) {
      out.add(args.get(i));
    }
    return out;
  }

  private static JsonNode text(String s) {
    return Fixtures.JSON.getNodeFactory().textNode(s);
  }
}
