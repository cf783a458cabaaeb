package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.FULLNAME;
import static io.meshinjector.chart.Charts.NS;
import static io.meshinjector.chart.Charts.find;
import static io.meshinjector.chart.Charts.render;
import static io.meshinjector.chart.Charts.texts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.revisions.RevisionConfig;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.revisions.RouteEntries;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A release as one revision among several: the values {@code revision} and {@code routing}, what
 * they write into the webhook's config and onto its webhook configuration, and the RBAC and
 * ValidatingAdmissionPolicy that let its webhook write its own configuration and the tags pointing
 * at it, and nothing else. RevisionRoutingTest evaluates the entries themselves.
 */
class RevisionChartTest {
  private static final String WEBHOOK_SA = "system:serviceaccount:" + NS + ":" + FULLNAME;
  private static final String POLICY = FULLNAME + "-webhook-configurations";

  @Test
  void aReleaseWithoutARevisionServesTheTagDefaultItselfUntilATagObjectDoes() throws IOException {
    List<JsonNode> docs = render(t -> t);
    JsonNode mwc = find(docs, "MutatingWebhookConfiguration", FULLNAME);
    assertThat(mwc.at("/metadata/labels/mesh-injector.io~1revision").asText()).isEqualTo("default");
    assertThat(mwc.at("/metadata/annotations/mesh-injector.io~1failure-policy").asText())
        .isEqualTo("Fail");
    // the fail-closed entry for `enabled` a single release always had, and the catch-all
    assertThat(fields(mwc.path("webhooks"), "name"))
        .containsExactly(
            RouteEntries.ROUTED,
            RouteEntries.POD_REV,
            RouteEntries.OTHER_REV,
            RouteEntries.CATCH_ALL);
    JsonNode routed = mwc.at("/webhooks/0");
    assertThat(routed.path("failurePolicy").asText()).isEqualTo("Fail");
    assertThat(routed.at("/clientConfig/service/path").asText()).isEqualTo("/mutate");
    assertThat(texts(routed.at("/namespaceSelector/matchExpressions/0/values")))
        .containsExactly("enabled");
    JsonNode catchAll = mwc.at("/webhooks/3");
    assertThat(catchAll.path("failurePolicy").asText()).isEqualTo("Ignore");
    assertThat(catchAll.at("/clientConfig/service/path").asText()).isEqualTo("/mutate/unrouted");
    JsonNode route = catchAll.at("/namespaceSelector/matchExpressions/0");
    assertThat(route.path("key").asText()).isEqualTo(RevisionNames.ROUTE_LABEL);
    assertThat(route.path("operator").asText()).isEqualTo("NotIn");
    assertThat(texts(route.path("values"))).containsExactly("enabled");

    RevisionConfig config = revisionConfig(docs);
    assertThat(config).isEqualTo(RevisionConfig.SINGLE);
    // `default` said outright is the same release
    assertThat(revisionConfig(render(t -> t.set("revision", "default")))).isEqualTo(config);

    // once `tag set default` made a tag object, an upgrade renders the catch-all alone
    FakeKubeApi api = FakeKubeApi.get();
    api.putWebhookConfiguration(
        RevisionNames.tagObjectName("default"),
        Map.of(RevisionNames.TAG_LABEL, "default", RevisionNames.REVISION_LABEL, "canary"));
    try {
      JsonNode upgraded = find(render(t -> t), "MutatingWebhookConfiguration", FULLNAME);
      assertThat(fields(upgraded.path("webhooks"), "name")).containsExactly(RouteEntries.CATCH_ALL);
    } finally {
      api.clear();
    }
  }

  /** The {@code field} of each element of {@code array}. */
  private static List<String> fields(JsonNode array, String field) {
    List<String> out = new java.util.ArrayList<>();
    array.forEach(n -> out.add(n.path(field).asText()));
    return out;
  }

  @Test
  void aRevisionLabelsItsConfigurationAndItsCatchAllLeavesItsOwnNamespacesAlone()
      throws IOException {
    List<JsonNode> docs =
        render(t -> t.set("revision", "canary").set("admissionWebhook.failurePolicy", "Ignore"));
    JsonNode mwc = find(docs, "MutatingWebhookConfiguration", FULLNAME);
    assertThat(mwc.at("/metadata/labels/mesh-injector.io~1revision").asText()).isEqualTo("canary");
    assertThat(mwc.at("/metadata/annotations/mesh-injector.io~1failure-policy").asText())
        .isEqualTo("Ignore");
    JsonNode catchAll = mwc.at("/webhooks/3");
    assertThat(catchAll.path("name").asText()).isEqualTo(RouteEntries.CATCH_ALL);
    assertThat(texts(catchAll.at("/namespaceSelector/matchExpressions/0/values")))
        .containsExactly("enabled", "canary");
    assertThat(revisionConfig(docs).name()).isEqualTo("canary");
  }

  @Test
  void aRevisionOtherThanDefaultNeedsMatchConditions() throws IOException {
    assertThatThrownBy(() -> render(t -> t.set("revision", "canary").withKubeVersion("1.27.9")))
        .hasMessageContaining(
            "revisions other than default need Kubernetes 1.28+ (matchConditions)");
    // the revision default still renders there as a single release always did: the fail-closed
    // entry for `enabled` and the catch-all, without conditions
    JsonNode old =
        find(render(t -> t.withKubeVersion("1.27.9")), "MutatingWebhookConfiguration", FULLNAME);
    assertThat(fields(old.path("webhooks"), "name"))
        .containsExactly(RouteEntries.ROUTED, RouteEntries.CATCH_ALL);
    assertThat(old.at("/webhooks/0/failurePolicy").asText()).isEqualTo("Fail");
    assertThat(old.at("/webhooks/0").has("matchConditions")).isFalse();
    assertThat(old.at("/webhooks/1").has("matchConditions")).isFalse();
  }

  @Test
  void aRevisionNameIsCheckedAsTheWebhookChecksIt() {
    for (String bad :
        List.of("Canary", "-canary", "canary-", "can_ary", "a".repeat(41), "enabled", "disabled")) {
      String problem = RevisionNames.problem(bad).orElseThrow();
      assertThatThrownBy(() -> render(t -> t.set("revision", bad)))
          .as(bad)
          .hasMessageContaining("revision \"" + bad + "\"")
          .hasMessageContaining(
              problem.contains("reserved") ? "is reserved" : "at most 40 characters");
    }
    assertThat(RevisionNames.problem("a".repeat(40))).isEmpty();
    assertThatThrownBy(() -> render(t -> t.set("revision", 7)))
        .hasMessageContaining("at '/revision'");
  }

  @Test
  void aUrlMustEndInMutate() throws IOException {
    assertThatThrownBy(() -> render(t -> t.set("admissionWebhook.url", "https://10.0.0.5:8443/")))
        .hasMessageContaining(
            "admissionWebhook.url \"https://10.0.0.5:8443/\" must end in /mutate");
    JsonNode mwc =
        find(
            render(
                t ->
                    t.set("admissionWebhook.url", "https://10.0.0.5:8443/x/mutate")
                        .set("revision", "canary")),
            "MutatingWebhookConfiguration",
            FULLNAME);
    List<String> urls = new ArrayList<>();
    mwc.path("webhooks").forEach(w -> urls.add(w.at("/clientConfig/url").asText()));
    assertThat(urls)
        .containsExactly(
            "https://10.0.0.5:8443/x/mutate",
            "https://10.0.0.5:8443/x/mutate",
            "https://10.0.0.5:8443/x/mutate/unrouted",
            "https://10.0.0.5:8443/x/mutate/unrouted");
  }

  @Test
  void theReleaseThatRunsTheProbeWritesTheNamespaceLabels() throws IOException {
    assertThat(revisionConfig(render(t -> t)).namespaceLabels()).isTrue();
    assertThat(revisionConfig(render(t -> t.set("probe.enabled", false))).namespaceLabels())
        .isFalse();
    assertThat(
            revisionConfig(
                    render(t -> t.set("probe.enabled", false).set("routing.namespaceLabels", true)))
                .namespaceLabels())
        .isTrue();
    assertThat(revisionConfig(render(t -> t.set("routing.namespaceLabels", false))))
        .isEqualTo(new RevisionConfig("default", false, true));
    assertThat(revisionConfig(render(t -> t.set("routing.createDefaultTag", false))))
        .isEqualTo(new RevisionConfig("default", true, false));
    assertThatThrownBy(() -> render(t -> t.set("routing.namespaceLabels", "maybe")))
        .hasMessageContaining("at '/routing/namespaceLabels'");
  }

  @Test
  void theRevisionsKeysAreTheChartsToWrite() {
    for (String[] key :
        new String[][] {
          {"name", "revision"},
          {"namespaceLabels", "routing.namespaceLabels"},
          {"createDefaultTag", "routing.createDefaultTag"}
        }) {
      assertThatThrownBy(() -> render(t -> t.set("config.revisions." + key[0], "x")))
          .hasMessageContaining(
              "config.revisions." + key[0] + " is set by the chart; use " + key[1] + " instead");
    }
  }

  // ---- RBAC and the policy on webhook configuration writes -----------------------------------

  @Test
  void theWebhookReadsEveryWebhookConfigurationAndWritesThemUnderThePolicy() throws IOException {
    for (List<JsonNode> docs :
        List.of(render(t -> t), render(t -> t.set("tls.mode", "cert-manager")))) {
      JsonNode clusterRole = find(docs, "ClusterRole", FULLNAME);
      List<JsonNode> rules =
          WebhookChartTest.rulesFor(clusterRole, "mutatingwebhookconfigurations");
      assertThat(rules).hasSize(2);
      assertThat(texts(rules.get(0).path("verbs"))).containsExactly("get", "list", "watch");
      assertThat(texts(rules.get(1).path("verbs")))
          .containsExactly("create", "update", "patch", "delete");
      for (JsonNode rule : rules) {
        assertThat(texts(rule.path("apiGroups"))).containsExactly("admissionregistration.k8s.io");
        assertThat(rule.has("resourceNames")).isFalse();
      }
      JsonNode policy = find(docs, "ValidatingAdmissionPolicy", POLICY);
      assertThat(policy.at("/spec/failurePolicy").asText()).isEqualTo("Fail");
      JsonNode rule = policy.at("/spec/matchConstraints/resourceRules/0");
      assertThat(texts(rule.path("resources"))).containsExactly("mutatingwebhookconfigurations");
      assertThat(texts(rule.path("operations"))).containsExactly("CREATE", "UPDATE", "DELETE");
      JsonNode binding = find(docs, "ValidatingAdmissionPolicyBinding", POLICY);
      assertThat(binding.at("/spec/policyName").asText()).isEqualTo(POLICY);
      assertThat(texts(binding.at("/spec/validationActions"))).containsExactly("Deny");
      // the ServiceAccount it names is the one the Deployment runs as
      assertThat(
              find(docs, "Deployment", FULLNAME)
                  .at("/spec/template/spec/serviceAccountName")
                  .asText())
          .isEqualTo(FULLNAME);
    }
    // rendered where the probe's policies are
    assertThat(names(render(t -> t.set("probe.policy.enabled", false))))
        .doesNotContain("ValidatingAdmissionPolicy/" + POLICY);
    assertThat(names(render(t -> t.withKubeVersion("1.29.5"))))
        .doesNotContain("ValidatingAdmissionPolicy/" + POLICY);
    assertThat(names(render(t -> t.set("probe.enabled", false))))
        .contains("ValidatingAdmissionPolicy/" + POLICY);
  }

  @Test
  void theWebhookWritesItsOwnConfigurationAndTheTagsPointingAtItsRevisionOnly() throws IOException {
    Policy policy = Policy.rendered("canary");
    String tag = "mesh-injector-tag-prod";
    // its own configuration, whatever the write
    for (String op : List.of("CREATE", "UPDATE", "DELETE")) {
      assertThat(policy.denials(WEBHOOK_SA, op, FULLNAME, mwc("canary"), mwc("canary"))).isEmpty();
    }
    // a tag pointing at it: created, kept in step, deleted
    assertThat(policy.denials(WEBHOOK_SA, "CREATE", tag, mwc("canary"), null)).isEmpty();
    assertThat(policy.denials(WEBHOOK_SA, "UPDATE", tag, mwc("canary"), mwc("canary"))).isEmpty();
    assertThat(policy.denials(WEBHOOK_SA, "DELETE", tag, null, mwc("canary"))).isEmpty();

    // another revision's tag: not created, not taken over, not moved away, not deleted
    assertThat(policy.denials(WEBHOOK_SA, "CREATE", tag, mwc("stable"), null))
        .containsExactly(
            "the webhook of revision canary writes only tags whose label mesh-injector.io/revision"
                + " is canary before and after the write; CREATE of mesh-injector-tag-prod:"
                + " (none) -> stable");
    assertThat(policy.denials(WEBHOOK_SA, "UPDATE", tag, mwc("canary"), mwc("stable"))).hasSize(1);
    assertThat(policy.denials(WEBHOOK_SA, "UPDATE", tag, mwc("stable"), mwc("canary"))).hasSize(1);
    assertThat(policy.denials(WEBHOOK_SA, "UPDATE", tag, mwc(null), mwc("canary"))).hasSize(1);
    assertThat(policy.denials(WEBHOOK_SA, "DELETE", tag, null, mwc("stable"))).hasSize(1);
    assertThat(policy.denials(WEBHOOK_SA, "CREATE", tag, mwc(null), null)).hasSize(1);
    // any other webhook configuration, another release's own included
    assertThat(
            policy.denials(
                WEBHOOK_SA, "UPDATE", "stable-mesh-injector", mwc("canary"), mwc("canary")))
        .containsExactly(
            "the webhook of revision canary writes only its own webhook configuration "
                + FULLNAME
                + " and tags pointing at it, not stable-mesh-injector");
    assertThat(policy.denials(WEBHOOK_SA, "CREATE", "istio-sidecar-injector", mwc(null), null))
        .hasSize(1);

    // everyone else is RBAC's: an admin's `mesh-injector tag set` moves a tag between revisions,
    // and another release's webhook answers to its own policy
    assertThat(policy.denials("kubernetes-admin", "UPDATE", tag, mwc("stable"), mwc("canary")))
        .isEmpty();
    assertThat(
            policy.denials(
                "system:serviceaccount:mesh-stable:stable-mesh-injector",
                "DELETE",
                tag,
                null,
                mwc("canary")))
        .isEmpty();
    // the same name in another namespace is someone else
    assertThat(
            policy.denials(
                "system:serviceaccount:other:" + FULLNAME, "DELETE", tag, null, mwc("stable")))
        .isEmpty();

    // the revision default's webhook: the tag default pointing at it
    Policy byDefault = Policy.rendered("");
    assertThat(
            byDefault.denials(
                WEBHOOK_SA, "CREATE", "mesh-injector-tag-default", mwc("default"), null))
        .isEmpty();
    assertThat(
            byDefault.denials(
                WEBHOOK_SA, "UPDATE", "mesh-injector-tag-default", mwc("default"), mwc("canary")))
        .hasSize(1);
  }

  // ---- helpers ------------------------------------------------------------------------------

  static RevisionConfig revisionConfig(List<JsonNode> docs) throws IOException {
    return RevisionConfig.from(
        ConfigLoader.fromYaml(Charts.YAML.writeValueAsString(WebhookChartTest.configTree(docs))));
  }

  private static List<String> names(List<JsonNode> docs) {
    return Charts.names(docs);
  }

  /** A webhook configuration as CEL sees it ({@code object}), labelled with a revision or not. */
  private static Map<String, Object> mwc(String revision) {
    Map<String, Object> metadata = new HashMap<>();
    metadata.put("name", "x");
    if (revision != null) {
      metadata.put(
          "labels",
          Map.of(
              RevisionNames.REVISION_LABEL, revision, "app.kubernetes.io/name", "mesh-injector"));
    }
    return Map.of("metadata", metadata, "webhooks", List.of());
  }

  /** The rendered policy's matchConditions, variables and validations, compiled once. */
  record Policy(
      List<CelRuntime.Program> conditions,
      Map<String, CelRuntime.Program> variables,
      List<CelRuntime.Program[]> validations) {
    private static final CelCompiler COMPILER =
        CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("request", SimpleType.DYN)
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN)
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

    static Policy rendered(String revision) throws IOException {
      JsonNode spec =
          find(render(t -> t.set("revision", revision)), "ValidatingAdmissionPolicy", POLICY)
              .path("spec");
      List<CelRuntime.Program> conditions = new ArrayList<>();
      spec.path("matchConditions")
          .forEach(c -> conditions.add(program(c.path("expression").asText())));
      Map<String, CelRuntime.Program> variables = new LinkedHashMap<>();
      spec.path("variables")
          .forEach(
              v -> variables.put(v.path("name").asText(), program(v.path("expression").asText())));
      List<CelRuntime.Program[]> validations = new ArrayList<>();
      for (JsonNode v : spec.path("validations")) {
        assertThat(v.path("reason").asText()).isEqualTo("Forbidden");
        validations.add(
            new CelRuntime.Program[] {
              program(v.path("expression").asText()), program(v.path("messageExpression").asText())
            });
      }
      assertThat(conditions).hasSize(1);
      return new Policy(conditions, variables, validations);
    }

    private static CelRuntime.Program program(String expression) {
      try {
        CelAbstractSyntaxTree ast = COMPILER.compile(expression).getAst();
        return RUNTIME.createProgram(ast);
      } catch (Exception e) {
        throw new AssertionError("CEL does not compile: " + expression + ": " + e, e);
      }
    }

    /** The messages the API server would refuse the write with; empty when it is allowed. */
    List<String> denials(
        String user,
        String operation,
        String name,
        Map<String, Object> object,
        Map<String, Object> oldObject) {
      Map<String, Object> request = new HashMap<>();
      request.put("userInfo", Map.of("username", user, "groups", List.of("system:authenticated")));
      request.put("operation", operation);
      request.put("name", name);
      Map<String, Object> input = new HashMap<>();
      input.put("request", request);
      input.put("object", object == null ? NullValue.NULL_VALUE : object);
      input.put("oldObject", oldObject == null ? NullValue.NULL_VALUE : oldObject);
      Map<String, Object> vars = new LinkedHashMap<>();
      input.put("variables", vars);
      try {
        for (CelRuntime.Program c : conditions) {
          if (!Boolean.TRUE.equals(c.eval(input))) {
            return List.of();
          }
        }
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
        throw new AssertionError("CEL evaluation failed for " + request + ": " + e, e);
      }
    }
  }
}
