package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.FULLNAME;
import static io.meshinjector.chart.Charts.NS;
import static io.meshinjector.chart.Charts.find;
import static io.meshinjector.chart.Charts.ofKind;
import static io.meshinjector.chart.Charts.render;
import static io.meshinjector.chart.Charts.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The repair's chart objects (docs/operations.md#repair): the probe's arguments and rights per
 * {@code probe.repair.mode}, the fallback to {@code report} where the node-scoping policy cannot be
 * rendered, and the policy's CEL evaluated with CEL-Java over the DELETE requests the API server
 * would send ({@code request}, {@code oldObject}). RepairIT proves the same on a real API server.
 */
class RepairChartTest {
  static final String POLICY = FULLNAME + "-node-repair";
  static final String PROBE = "system:serviceaccount:" + NS + ":" + FULLNAME + "-probe";
  static final String NODE_NAME = "authentication.kubernetes.io/node-name";

  static JsonNode probe(List<JsonNode> docs) {
    return find(docs, "DaemonSet", FULLNAME + "-probe").at("/spec/template/spec/containers/0");
  }

  static Map<String, List<String>> rights(List<JsonNode> docs) {
    Map<String, List<String>> verbs = new TreeMap<>();
    for (JsonNode rule : find(docs, "ClusterRole", FULLNAME + "-probe").path("rules")) {
      for (String resource : texts(rule.path("resources"))) {
        assertThat(verbs).as("one rule per resource").doesNotContainKey(resource);
        verbs.put(resource, texts(rule.path("verbs")));
      }
    }
    return verbs;
  }

  static String arg(JsonNode container, String flag) {
    List<String> args = texts(container.path("args"));
    int i = args.indexOf(flag);
    return i < 0 ? null : args.get(i + 1);
  }

  @Test
  void repairByDefaultWithItsRightsArgumentsMetricsPortAndPolicy() throws IOException {
    List<JsonNode> docs = render(t -> t);
    JsonNode probe = probe(docs);
    assertThat(arg(probe, "--repair")).isEqualTo("repair");
    assertThat(arg(probe, "--repair-per-minute")).isEqualTo("5");
    assertThat(arg(probe, "--repair-backoff")).isEqualTo("10m");
    assertThat(arg(probe, "--metrics-port")).isEqualTo("9090");
    assertThat(probe.at("/ports/0/containerPort").asInt()).isEqualTo(9090);
    Map<String, List<String>> rights = rights(docs);
    assertThat(rights.get("pods")).containsExactlyInAnyOrder("list", "watch", "delete");
    assertThat(rights.get("events")).containsExactly("create");
    // never an eviction, nor any read of anything else
    assertThat(rights).doesNotContainKey("pods/eviction");
    assertThat(rights)
        .containsOnlyKeys("nodecapabilities", "nodecapabilities/status", "pods", "events");
    JsonNode policy = find(docs, "ValidatingAdmissionPolicy", POLICY);
    JsonNode rule = policy.at("/spec/matchConstraints/resourceRules/0");
    assertThat(texts(rule.path("operations"))).containsExactly("DELETE");
    assertThat(texts(rule.path("resources"))).containsExactly("pods");
    assertThat(policy.at("/spec/failurePolicy").asText()).isEqualTo("Fail");
    assertThat(
            texts(
                find(docs, "ValidatingAdmissionPolicyBinding", POLICY)
                    .at("/spec/validationActions")))
        .containsExactly("Deny");
  }

  @Test
  void reportReadsAndRecordsButNeverDeletes() throws IOException {
    List<JsonNode> docs = render(t -> t.set("probe.repair.mode", "report"));
    assertThat(arg(probe(docs), "--repair")).isEqualTo("report");
    assertThat(rights(docs).get("pods")).containsExactlyInAnyOrder("list", "watch");
    assertThat(
            ofKind(docs, "ValidatingAdmissionPolicy").stream()
                .map(d -> d.at("/metadata/name").asText()))
        .doesNotContain(POLICY);
  }

  @Test
  void offReadsNoPodAndOpensNoPort() throws IOException {
    List<JsonNode> docs =
        render(t -> t.set("probe.repair.mode", "off").set("probe.repair.perNodePerMinute", 9));
    JsonNode probe = probe(docs);
    assertThat(arg(probe, "--repair")).isEqualTo("off");
    assertThat(arg(probe, "--repair-per-minute")).isNull();
    assertThat(probe.has("ports")).isFalse();
    assertThat(rights(docs)).doesNotContainKeys("pods", "events");
  }

  @Test
  void withoutThePolicyRepairRunsAsReport() throws IOException {
    for (List<JsonNode> docs :
        List.of(
            render(t -> t.withKubeVersion("1.29.5")),
            render(t -> t.set("probe.policy.enabled", false)))) {
      assertThat(arg(probe(docs), "--repair")).isEqualTo("report");
      assertThat(rights(docs).get("pods")).doesNotContain("delete");
      assertThat(ofKind(docs, "ValidatingAdmissionPolicy")).isEmpty();
    }
  }

  @Test
  void theProbeDeletesOnlyPodsBoundToItsOwnNode() throws IOException {
    Policy policy = Policy.rendered();
    assertThat(policy.matches(PROBE)).isTrue();
    // everyone else's deletes are not even evaluated
    assertThat(policy.matches("system:serviceaccount:kube-system:replicaset-controller")).isFalse();
    assertThat(policy.matches("system:serviceaccount:other:" + FULLNAME + "-probe")).isFalse();

    assertThat(policy.denials(node("node-a"), pod("node-a"))).isEmpty();
    assertThat(policy.denials(node("node-a"), pod("node-b")))
        .containsExactly(
            "the node probe on node-a may delete only pods bound to node-a, not shop/web-1 on node-b");
    assertThat(policy.denials(node("node-a"), pod(null)))
        .containsExactly(
            "the node probe on node-a may delete only pods bound to node-a, not shop/web-1 (unscheduled)");
    String none =
        "the node probe deletes pods only with a pod-bound token naming its node (Kubernetes"
            + " 1.30+); this one names none";
    assertThat(policy.denials(null, pod("node-a"))).containsExactly(none);
    assertThat(policy.denials(Map.of(NODE_NAME, List.of("node-a", "node-b")), pod("node-a")))
        .containsExactly(none);
  }

  static Map<String, Object> node(String name) {
    return Map.of(NODE_NAME, List.of(name));
  }

  static Map<String, Object> pod(String nodeName) {
    Map<String, Object> spec = new HashMap<>();
    if (nodeName != null) {
      spec.put("nodeName", nodeName);
    }
    return Map.of("metadata", Map.of("name", "web-1", "namespace", "shop"), "spec", spec);
  }

  /** The rendered policy's match condition, variables and validations, compiled once. */
  record Policy(
      CelRuntime.Program match,
      Map<String, CelRuntime.Program> variables,
      List<CelRuntime.Program[]> validations) {
    private static final CelCompiler COMPILER =
        CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("request", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN)
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

    static Policy rendered() throws IOException {
      JsonNode spec = find(render(t -> t), "ValidatingAdmissionPolicy", POLICY).path("spec");
      assertThat(spec.path("matchConditions")).hasSize(1);
      Map<String, CelRuntime.Program> variables = new LinkedHashMap<>();
      for (JsonNode v : spec.path("variables")) {
        variables.put(v.path("name").asText(), program(v.path("expression").asText()));
      }
      List<CelRuntime.Program[]> validations = new ArrayList<>();
      for (JsonNode v : spec.path("validations")) {
        assertThat(v.path("reason").asText()).isEqualTo("Forbidden");
        validations.add(
            new CelRuntime.Program[] {
              program(v.path("expression").asText()), program(v.path("messageExpression").asText())
            });
      }
      return new Policy(
          program(spec.at("/matchConditions/0/expression").asText()), variables, validations);
    }

    static CelRuntime.Program program(String expression) {
      try {
        return RUNTIME.createProgram(COMPILER.compile(expression).getAst());
      } catch (Exception e) {
        throw new AssertionError("CEL does not compile: " + expression + ": " + e, e);
      }
    }

    boolean matches(String user) {
      try {
        return Boolean.TRUE.equals(match.eval(input(user, null, pod("node-a"))));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    static Map<String, Object> input(
        String user, Map<String, Object> extra, Map<String, Object> old) {
      Map<String, Object> userInfo = new HashMap<>();
      userInfo.put("username", user);
      userInfo.put("groups", List.of("system:serviceaccounts", "system:authenticated"));
      if (extra != null) {
        userInfo.put("extra", extra);
      }
      Map<String, Object> request = new HashMap<>();
      request.put("userInfo", userInfo);
      request.put("operation", "DELETE");
      request.put("namespace", "shop");
      request.put("name", "web-1");
      Map<String, Object> input = new HashMap<>();
      input.put("request", request);
      input.put("oldObject", old);
      input.put("variables", new LinkedHashMap<String, Object>());
      return input;
    }

    @SuppressWarnings("unchecked")
    List<String> denials(Map<String, Object> extra, Map<String, Object> old) {
      try {
        Map<String, Object> input = input(PROBE, extra, old);
        Map<String, Object> vars = (Map<String, Object>) input.get("variables");
        for (var v : variables.entrySet()) {
          vars.put(v.getKey(), v.getValue().eval(input));
        }
        List<String> denied = new ArrayList<>();
        for (CelRuntime.Program[] v : validations) {
          if (!Boolean.TRUE.equals(v[0].eval(input))) {
            denied.add(String.valueOf(v[1].eval(input)));
          }
        }
        return denied;
      } catch (Exception e) {
        throw new AssertionError("CEL evaluation failed: " + e, e);
      }
    }
  }
}
