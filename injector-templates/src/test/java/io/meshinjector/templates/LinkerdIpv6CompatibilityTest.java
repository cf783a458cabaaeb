package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A plan that redirects IPv6 too, against what Linkerd's proxy injector renders with {@code
 * disableIPv6: false}. Linkerd's goldens are all rendered with its default, {@code true} (IPv6
 * opt-in since linkerd2 PR #12576), so the expected pods are those goldens with the parts that read
 * {@code disableIPv6} rendered as Linkerd's chart partials render them with {@code false}: the
 * partials and the chart's values are vendored under {@code linkerd-charts/} (commit b24cd40, the
 * goldens' own), and the same rendering with {@code true} must give the goldens' parts first.
 */
class LinkerdIpv6CompatibilityTest {
  private static final String DIR = "linkerd-charts/";
  private static final String DISABLE_IPV6 = ".Values.disableIPv6";

  /** A region of a partial: every line that reads {@code disableIPv6}, and what it renders. */
  enum Part {
    /** linkerd-init's {@code --ipv6=false}, right before {@code --incoming-proxy-port}. */
    PROXY_INIT("_proxy-init.tpl", "{{- if .Values.disableIPv6 }}", "- --incoming-proxy-port"),
    /** The validator's arguments. */
    VALIDATOR("_network-validator.tpl", "args:", "{{- end -}}"),
    /** The proxy's listen addresses. */
    PROXY_ENV(
        "_proxy.tpl",
        "- name: LINKERD2_PROXY_CONTROL_LISTEN_ADDR",
        "- name: LINKERD2_PROXY_INBOUND_IPS");

    final String file;
    final String start;
    final String end;

    Part(String file, String start, String end) {
      this.file = file;
      this.start = start;
      this.end = end;
    }

    String partial() {
      return Fixtures.resource(DIR + file);
    }

    String region() {
      return GoTemplateSubset.region(partial(), start, end);
    }

    /** The region as Linkerd renders it with its chart's values and {@code disableIPv6}. */
    JsonNode rendered(boolean disableIpv6, String connectAddr) {
      ObjectNode values = (ObjectNode) Fixtures.loadTrees(DIR + "values.yaml").get(0);
      values.put("disableIPv6", disableIpv6);
      ((ObjectNode) values.get("networkValidator")).put("connectAddr", connectAddr);
      try {
        JsonNode tree = Fixtures.YAML_IN.readTree(GoTemplateSubset.render(region(), values) + "\n");
        return tree == null || tree.isMissingNode() || tree.isNull()
            ? Fixtures.JSON.createArrayNode()
            : tree;
      } catch (JsonProcessingException e) {
        throw new UncheckedIOException(e);
      }
    }

    JsonNode rendered(boolean disableIpv6) {
      return rendered(disableIpv6, "");
    }
  }

  /** Nothing outside the regions reads disableIPv6, so nothing else of Linkerd's pod changes. */
  @Test
  void theRegionsHoldEveryPlaceThePartialsReadDisableIpv6() {
    for (Part p : Part.values()) {
      assertThat(GoTemplateSubset.count(p.partial(), DISABLE_IPV6)).as(p.file).isPositive();
      assertThat(GoTemplateSubset.count(p.region(), DISABLE_IPV6))
          .as(p.file)
          .isEqualTo(GoTemplateSubset.count(p.partial(), DISABLE_IPV6));
    }
    assertThat(Fixtures.loadTrees(DIR + "values.yaml").get(0).path("disableIPv6").asBoolean())
        .as("Linkerd's default, which its goldens are rendered with")
        .isTrue();
  }

  /** The regions rendered with Linkerd's default give exactly the goldens' parts. */
  @Test
  void withDisableIpv6TheRegionsRenderLinkerdsGoldens() {
    JsonNode init = container(LinkerdCompatibilityTest.golden("native-init"), "linkerd-init");
    assertThat(Part.PROXY_INIT.rendered(true)).containsExactly(text("--ipv6=false"));
    assertThat(argsBeforeIncomingPort(init, Part.PROXY_INIT.rendered(true).size()))
        .isEqualTo(Part.PROXY_INIT.rendered(true));
    JsonNode validator =
        container(LinkerdCompatibilityTest.golden("native-cni"), "linkerd-network-validator");
    assertThat(validator.get("args")).isEqualTo(Part.VALIDATOR.rendered(true).get("args"));
    for (String golden : List.of("native-init", "native-cni", "classic-init")) {
      JsonNode proxy = container(LinkerdCompatibilityTest.golden(golden), Fixtures.PROXY);
      for (JsonNode e : Part.PROXY_ENV.rendered(true)) {
        assertThat(env(proxy, e.get("name").asText())).as(golden).isEqualTo(e);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "native-init, INIT_NFT, NATIVE_SIDECAR, false",
    "native-cni, CNI, NATIVE_SIDECAR, false",
    "classic-init, INIT_NFT, CONTAINER, true",
  })
  void anIpv6PlanRendersWhatLinkerdRendersWithIpv6On(
      String golden, String path, ProxyPlacement proxy, boolean await) {
    JsonNode expected = withIpv6(LinkerdCompatibilityTest.golden(golden));
    LinkerdCompatibilityTest.assertMatches(
        expected,
        Fixtures.injector(),
        new Plan(LinkerdCompatibilityTest.pathOf(path), proxy, await, true, null));
  }

  /** A configured validator address wins over the family's default, in Linkerd as here. */
  @Test
  void aConfiguredConnectAddressStaysOnAnIpv6Plan() {
    PodInjector injector =
        new PodInjector(
            TemplateConfig.from(
                ConfigLoader.fromYaml(
                    Fixtures.LINKERD_TEST_CONFIG + "validator: {connectAddr: 10.1.2.3:20001}\n")));
    JsonNode out =
        Injected.document(
            Fixtures.loadTrees("fixtures/emojivoto-deployment.yaml").get(0),
            Cases.NO_NAMESPACE,
            injector,
            (w, pod) ->
                Fixtures.inject(
                    w, new Plan(PathOption.CNI, ProxyPlacement.NATIVE_SIDECAR, true, true, null)));
    JsonNode validator =
        container(
            LinkerdCompatibilityTest.normalise(out.at("/spec/template")),
            "linkerd-network-validator");
    JsonNode linkerds = Part.VALIDATOR.rendered(false, "10.1.2.3:20001").get("args");
    assertThat(validator.get("args")).isEqualTo(linkerds);
    assertThat(linkerds.toString()).contains("\"10.1.2.3:20001\"", "\"[::]:4140\"");
  }

  /** Linkerd's golden as its partials render it with {@code disableIPv6: false}. */
  private static JsonNode withIpv6(JsonNode golden) {
    ObjectNode t = golden.deepCopy();
    for (JsonNode c : containers(t)) {
      switch (c.path("name").asText()) {
        case "linkerd-init" -> {
          ArrayNode args = (ArrayNode) c.get("args");
          int at = incomingPort(args) - Part.PROXY_INIT.rendered(true).size();
          for (int i = 0; i < Part.PROXY_INIT.rendered(true).size(); i++) {
            args.remove(at);
          }
          for (JsonNode a : Part.PROXY_INIT.rendered(false)) {
            args.insert(at++, a);
          }
        }
        case "linkerd-network-validator" ->
            ((ObjectNode) c).set("args", Part.VALIDATOR.rendered(false).get("args"));
        case Fixtures.PROXY -> {
          for (JsonNode e : Part.PROXY_ENV.rendered(false)) {
            ((ObjectNode) env(c, e.get("name").asText())).set("value", e.get("value"));
          }
        }
        default -> {}
      }
    }
    return t;
  }

  private static List<JsonNode> containers(JsonNode template) {
    List<JsonNode> out = new ArrayList<>();
    template.path("spec").path("initContainers").forEach(out::add);
    template.path("spec").path("containers").forEach(out::add);
    return out;
  }

  private static JsonNode container(JsonNode template, String name) {
    return containers(template).stream()
        .filter(c -> c.path("name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name));
  }

  private static JsonNode env(JsonNode container, String name) {
    for (JsonNode e : container.path("env")) {
      if (e.path("name").asText().equals(name)) {
        return e;
      }
    }
    throw new AssertionError("no env " + name + " in " + container.path("name"));
  }

  private static int incomingPort(JsonNode args) {
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).asText().equals("--incoming-proxy-port")) {
        return i;
      }
    }
    throw new AssertionError("no --incoming-proxy-port in " + args);
  }

  private static JsonNode argsBeforeIncomingPort(JsonNode init, int n) {
    ArrayNode out = Fixtures.JSON.createArrayNode();
    JsonNode args = init.get("args");
    int at = incomingPort(args);
    for (int i = at - n; i < at; i++) {
      out.add(args.get(i));
    }
    return out;
  }

  private static JsonNode text(String s) {
    return Fixtures.JSON.getNodeFactory().textNode(s);
  }
}
