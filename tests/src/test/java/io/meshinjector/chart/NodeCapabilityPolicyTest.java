package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.FULLNAME;
import static io.meshinjector.chart.Charts.NS;
import static io.meshinjector.chart.Charts.find;
import static io.meshinjector.chart.Charts.ofKind;
import static io.meshinjector.chart.Charts.render;
import static io.meshinjector.chart.Charts.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
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
import org.junit.jupiter.api.Test;

/**
 * The chart's ValidatingAdmissionPolicy for NodeCapability writes: rendered only where the cluster
 * serves it, and its CEL (variables, validations, messages) evaluated with CEL-Java over requests
 * the API server would send, as {@code request} with the same fields. What is checked: the probe
 * writes its own node's object and status and nothing else; it is refused without the node-name
 * claim; nobody but the admin groups and the node probes writes status, another release's probe
 * (while the probe is handed from one release to another) only its own node's; everyone else's
 * writes of the main resource are left to RBAC.
 */
class NodeCapabilityPolicyTest {
  private static final String POLICY = FULLNAME + "-node-capability-writers";
  private static final String PROBE = "system:serviceaccount:" + NS + ":" + FULLNAME + "-probe";
  private static final String NODE_NAME = "authentication.kubernetes.io/node-name";

  @Test
  void renderedWithItsBindingOnlyForAClusterThatServesTheV1Api() throws IOException {
    List<JsonNode> docs = render(t -> t);
    JsonNode policy = find(docs, "ValidatingAdmissionPolicy", POLICY);
    assertThat(policy.path("apiVersion").asText()).isEqualTo("admissionregistration.k8s.io/v1");
    assertThat(policy.at("/spec/failurePolicy").asText()).isEqualTo("Fail");
    JsonNode rule = policy.at("/spec/matchConstraints/resourceRules/0");
    assertThat(texts(rule.path("apiGroups"))).containsExactly("mesh-injector.io");
    assertThat(texts(rule.path("resources")))
        .containsExactly("nodecapabilities", "nodecapabilities/status");
    assertThat(texts(rule.path("operations"))).containsExactly("CREATE", "UPDATE", "DELETE");
    JsonNode binding = find(docs, "ValidatingAdmissionPolicyBinding", POLICY);
    assertThat(binding.at("/spec/policyName").asText()).isEqualTo(POLICY);
    assertThat(texts(binding.at("/spec/validationActions"))).containsExactly("Deny");
    // the probe's ServiceAccount the policy names is the one the DaemonSet runs as
    assertThat(
            find(docs, "DaemonSet", FULLNAME + "-probe")
                .at("/spec/template/spec/serviceAccountName")
                .asText())
        .isEqualTo(FULLNAME + "-probe");

    assertThat(
            ofKind(render(t -> t.set("probe.policy.enabled", false)), "ValidatingAdmissionPolicy"))
        .isEmpty();
    // 1.29 serves only v1beta1, which the chart does not use
    List<JsonNode> older = render(t -> t.withKubeVersion("1.29.5"));
    assertThat(ofKind(older, "ValidatingAdmissionPolicy")).isEmpty();
    assertThat(ofKind(older, "ValidatingAdmissionPolicyBinding")).isEmpty();
  }

  @Test
  void theProbeWritesItsOwnNodesObjectAndStatusOnly() throws IOException {
    Policy policy = Policy.rendered();
    for (String op : List.of("CREATE", "UPDATE", "DELETE")) {
      assertThat(policy.denials(request(PROBE, node("node-a"), op, "node-a", ""))).isEmpty();
    }
    assertThat(policy.denials(request(PROBE, node("node-a"), "UPDATE", "node-a", "status")))
        .isEmpty();

    assertThat(policy.denials(request(PROBE, node("node-a"), "UPDATE", "node-b", "status")))
        .containsExactly(
            "the node probe on node-a may write only NodeCapability node-a, not node-b");
    assertThat(policy.denials(request(PROBE, node("node-a"), "CREATE", "node-b", ""))).hasSize(1);
    assertThat(policy.denials(request(PROBE, node("node-a"), "DELETE", "node-b", ""))).hasSize(1);
  }

  @Test
  void theProbeWithoutTheNodeNameClaimWritesNothing() throws IOException {
    Policy policy = Policy.rendered();
    String message =
        "the node probe writes NodeCapabilities only with a pod-bound token naming its node"
            + " (Kubernetes 1.30+); this one names none";
    // a token that is not pod-bound, or an API server before 1.30: no extra at all
    assertThat(policy.denials(request(PROBE, null, "UPDATE", "node-a", "status")))
        .containsExactly(message);
    assertThat(policy.denials(request(PROBE, Map.of(), "CREATE", "node-a", "")))
        .containsExactly(message);
    // an empty or ambiguous claim is no claim
    assertThat(policy.denials(request(PROBE, Map.of(NODE_NAME, List.of()), "CREATE", "node-a", "")))
        .containsExactly(message);
    assertThat(
            policy.denials(
                request(
                    PROBE, Map.of(NODE_NAME, List.of("node-a", "node-b")), "CREATE", "node-a", "")))
        .containsExactly(message);
  }

  @Test
  void statusIsWrittenByNoOneElseButTheAdminGroups() throws IOException {
    Policy policy = Policy.rendered();
    String webhook = "system:serviceaccount:" + NS + ":" + FULLNAME;
    assertThat(policy.denials(request(webhook, node("node-a"), "UPDATE", "node-a", "status")))
        .containsExactly(
            "NodeCapability status is written only by the node probes and cluster admins, not by "
                + webhook);
    assertThat(policy.denials(request("jane", node("node-a"), "UPDATE", "node-a", "status")))
        .hasSize(1);
    // another release's probe, while the probe is handed over: its own node's status only, and
    // only with a pod-bound token naming it
    String other = "system:serviceaccount:mesh-canary:canary-mesh-injector-probe";
    assertThat(policy.denials(request(other, node("node-a"), "UPDATE", "node-a", "status")))
        .isEmpty();
    assertThat(policy.denials(request(other, node("node-a"), "UPDATE", "node-b", "status")))
        .containsExactly(
            "the node probe "
                + other
                + " on node-a may write only the status of NodeCapability node-a, not node-b");
    assertThat(policy.denials(request(other, null, "UPDATE", "node-a", "status")))
        .containsExactly(
            "the node probe "
                + other
                + " writes NodeCapability status only with a pod-bound token naming its node"
                + " (Kubernetes 1.30+); this one names none");
    // a name that only ends like a probe's, or has no namespace, is no probe
    for (String notAProbe :
        List.of(
            "system:serviceaccount:x:canary-probe-2",
            "system:serviceaccount:canary-probe",
            "probe",
            "jane-probe")) {
      assertThat(policy.denials(request(notAProbe, node("node-a"), "UPDATE", "node-a", "status")))
          .as(notAProbe)
          .hasSize(1);
    }
    Map<String, Object> admin = request("kubernetes-admin", null, "UPDATE", "node-z", "status");
    admin.put("groups", null);
    ((Map<String, Object>) admin.get("userInfo")).put("groups", List.of("system:masters"));
    assertThat(policy.denials(admin)).isEmpty();
    // writes of the main resource by others are RBAC's to allow or not
    assertThat(policy.denials(request("jane", null, "CREATE", "node-a", ""))).isEmpty();
    // another admin group, configured
    Policy custom = Policy.rendered("probe.policy.adminGroups[0]", "platform-admins");
    Map<String, Object> platform = request("ops", null, "UPDATE", "node-z", "status");
    ((Map<String, Object>) platform.get("userInfo")).put("groups", List.of("platform-admins"));
    assertThat(custom.denials(platform)).isEmpty();
    assertThat(custom.denials(admin)).hasSize(1);
  }

  private static Map<String, Object> node(String name) {
    return Map.of(NODE_NAME, List.of(name), "authentication.kubernetes.io/pod-name", List.of("p"));
  }

  /** The admission request as the policy sees it ({@code request.*}). */
  private static Map<String, Object> request(
      String user, Map<String, Object> extra, String operation, String name, String subResource) {
    Map<String, Object> userInfo = new HashMap<>();
    userInfo.put("username", user);
    userInfo.put("groups", List.of("system:authenticated"));
    if (extra != null) {
      userInfo.put("extra", extra);
    }
    Map<String, Object> request = new HashMap<>();
    request.put("userInfo", userInfo);
    request.put("operation", operation);
    request.put("name", name);
    request.put("subResource", subResource);
    request.put(
        "kind",
        Map.of("group", "mesh-injector.io", "version", "v1alpha1", "kind", "NodeCapability"));
    return request;
  }

  /** The rendered policy's variables and validations, compiled once. */
  record Policy(Map<String, CelRuntime.Program> variables, List<Validation> validations) {
    record Validation(CelRuntime.Program expression, CelRuntime.Program message) {}

    private static final CelCompiler COMPILER =
        CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("request", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN)
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

    static Policy rendered(String... set) throws IOException {
      JsonNode spec =
          find(
                  render(
                      t -> {
                        for (int i = 0; i < set.length; i += 2) {
                          t = t.set(set[i], set[i + 1]);
                        }
                        return t;
                      }),
                  "ValidatingAdmissionPolicy",
                  POLICY)
              .path("spec");
      Map<String, CelRuntime.Program> variables = new LinkedHashMap<>();
      for (JsonNode v : spec.path("variables")) {
        variables.put(v.path("name").asText(), program(v.path("expression").asText()));
      }
      List<Validation> validations = new ArrayList<>();
      for (JsonNode v : spec.path("validations")) {
        assertThat(v.path("reason").asText()).isEqualTo("Forbidden");
        validations.add(
            new Validation(
                program(v.path("expression").asText()),
                program(v.path("messageExpression").asText())));
      }
      assertThat(variables).containsOnlyKeys("isProbe", "isAnyProbe", "isAdmin", "probeNode");
      assertThat(validations).hasSize(2);
      return new Policy(variables, validations);
    }

    private static CelRuntime.Program program(String expression) {
      try {
        CelAbstractSyntaxTree ast = COMPILER.compile(expression).getAst();
        return RUNTIME.createProgram(ast);
      } catch (Exception e) {
        throw new AssertionError("CEL does not compile: " + expression + ": " + e, e);
      }
    }

    /** The messages of the validations that fail, as the API server would refuse with them. */
    List<String> denials(Map<String, Object> request) {
      try {
        Map<String, Object> vars = new LinkedHashMap<>();
        Map<String, Object> input = new HashMap<>();
        input.put("request", request);
        input.put("variables", vars);
        // in order: a variable may read the ones before it
        for (var v : variables.entrySet()) {
          vars.put(v.getKey(), v.getValue().eval(input));
        }
        List<String> denied = new ArrayList<>();
        for (Validation v : validations) {
          if (!Boolean.TRUE.equals(v.expression().eval(input))) {
            denied.add(String.valueOf(v.message().eval(input)));
          }
        }
        return denied;
      } catch (Exception e) {
        throw new AssertionError("CEL evaluation failed for " + request + ": " + e, e);
      }
    }
  }
}
