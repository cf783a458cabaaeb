package io.meshinjector.webhook.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.rfc6902.Parsson;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import io.meshinjector.webhook.server.RequestBody;
import io.meshinjector.webhook.settings.WebhookSettings;
import io.meshinjector.webhook.support.InProcessEndpoint;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.ServedLimits;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every admission case of {@code POST /mutate}, in-process: each row's body goes through {@link
 * AdmissionEndpoint#answer} (content type, size, decode, then {@link PodAdmission}) and the reply
 * is encoded as the server writes it, then checked as the served answer was checked over TLS: the
 * HTTP status, the AdmissionReview or Status, and every patch applied with Parsson. The endpoint is
 * the one {@code serve} wires for the config and cluster files {@code AdmissionServerTest} serves
 * with; after every row the same endpoint still injects a valid request. What is about the
 * transport stays in {@code server.AdmissionServerTest}.
 */
class AdmissionCasesTest {
  private static final int MAX_BODY = ServedLimits.MAX_BODY;
  private static final int MAX_STRING = ServedLimits.MAX_STRING;

  /** The served {@code --config}, as AdmissionServerTest writes it. */
  private static final MeshConfig CONFIG =
      ConfigLoader.fromYaml("config.yaml", ServedLimits.CONFIG_YAML);

  /** The served {@code --cluster} files: the README's example and the inject spellings. */
  private static final InMemoryClusterView VIEW =
      ClusterFiles.load(
          CONFIG.engine().capabilities(),
          List.of(Reviews.example("cluster.yaml"), Reviews.testCluster("inject-spellings.yaml")));

  /** One endpoint for every row, as the server has one. */
  private static final AdmissionEndpoint ENDPOINT = endpoint();

  private static AdmissionEndpoint endpoint() {
    WebhookSettings settings = WebhookSettings.from(CONFIG);
    assertThat(settings.maxRequestBytes()).isEqualTo(MAX_BODY);
    assertThat(settings.maxStringLength()).isEqualTo(MAX_STRING);
    assertThat(settings.maxNestingDepth()).isEqualTo(40);
    return InProcessEndpoint.of(CONFIG, () -> VIEW, new SimpleMeterRegistry());
  }

  /** The answer to a row, as the server would send it. */
  record Answer(int status, String body, JsonNode json) {
    JsonNode response() {
      return json.path("response");
    }

    String message() {
      return json.path("message").asText();
    }
  }

  @FunctionalInterface
  interface Check {
    void verify(Answer answer) throws Exception;
  }

  /**
   * One admission case.
   *
   * @param review the AdmissionReview the body was written from, or null for a body that is not one
   * @param status the expected HTTP status
   */
  record Case(
      String name, String contentType, byte[] body, JsonNode review, int status, Check check) {
    @Override
    public String toString() {
      return name;
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void answersAsTheServerDoes(Case c) throws Exception {
    try {
      check(c);
    } catch (AssertionError e) {
      // Maven's report names a row by its index only
      throw new AssertionError("case '" + c.name() + "': " + e.getMessage(), e);
    }
  }

  private static void check(Case c) throws Exception {
    Answer answer = answer(c.contentType(), c.body());

    assertThat(answer.status()).as("the HTTP status").isEqualTo(c.status());
    if (c.status() == 200) {
      // an admission: the review's apiVersion and uid echoed
      assertThat(answer.json().path("kind").asText()).isEqualTo("AdmissionReview");
      if (c.review() != null) {
        assertThat(answer.json().path("apiVersion").asText())
            .isEqualTo(c.review().path("apiVersion").asText());
        assertThat(answer.response().path("uid").asText())
            .isEqualTo(c.review().path("request").path("uid").asText());
      }
    } else {
      // not an admission: a Kubernetes Status with the same code
      assertThat(answer.json().path("apiVersion").asText()).isEqualTo("v1");
      assertThat(answer.json().path("kind").asText()).isEqualTo("Status");
      assertThat(answer.json().path("status").asText()).isEqualTo("Failure");
      assertThat(answer.json().path("code").asInt()).isEqualTo(c.status());
    }
    c.check().verify(answer);

    validRequestStillSucceeds();
  }

  static Answer answer(String contentType, byte[] body) throws Exception {
    AdmissionReply reply = ENDPOINT.answer(contentType, RequestBody.of(body));
    AdmissionCodec.Encoded encoded = ENDPOINT.encode(reply);
    String text = new String(encoded.bytes(), 0, encoded.length(), StandardCharsets.UTF_8);
    return new Answer(reply.httpStatus(), text, Reviews.JSON.readTree(text));
  }

  static Stream<Case> cases() throws Exception {
    List<Case> cases = new ArrayList<>();
    admissions(cases);
    refusedOrUntouched(cases);
    transportOfTheBody(cases);
    notAReview(cases);
    notAPod(cases);
    return cases.stream();
  }

  // ---------------------------------------------------------------- rows

  private static void admissions(List<Case> cases) throws Exception {
    JsonNode example = Reviews.exampleJson("admission-review.json");
    cases.add(
        review(
            "the example pod is injected and the patch applies with Parsson",
            example,
            200,
            a -> {
              JsonNode response = a.response();
              assertThat(a.json().path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
              assertThat(response.path("allowed").asBoolean()).isTrue();
              assertThat(response.path("auditAnnotations").path("decision").asText())
                  .isEqualTo("init/nft native-sidecar await");
              assertThat(response.path("auditAnnotations").path("outcome").asText())
                  .isEqualTo("injected");

              JsonNode pod = patchedPod(example, response);
              assertThat(
                      text(
                          pod.path("metadata")
                              .path("annotations")
                              .path("mesh-injector.io/decision")))
                  .isEqualTo("init/nft native-sidecar await");
              // init/nft as a native sidecar: the iptables init container in nft mode, then the
              // proxy with restartPolicy Always, and the app container as it was
              JsonNode inits = pod.path("spec").path("initContainers");
              assertThat(inits.isArray()).isTrue();
              assertThat(inits).hasSize(2);
              assertThat(text(inits.get(0).path("name"))).isEqualTo("linkerd-init");
              assertThat(inits.get(0).path("args").isArray()).isTrue();
              assertThat(inits.get(0).path("args").toString()).contains("\"iptables-nft\"");
              assertThat(text(inits.get(1).path("name"))).isEqualTo("linkerd-proxy");
              assertThat(text(inits.get(1).path("restartPolicy"))).isEqualTo("Always");
              assertThat(inits.get(1).path("lifecycle").path("postStart").isObject()).isTrue();
              JsonNode containers = pod.path("spec").path("containers");
              assertThat(containers.isArray()).isTrue();
              assertThat(containers).hasSize(1);
              assertThat(containers.get(0))
                  .isEqualTo(
                      example
                          .path("request")
                          .path("object")
                          .path("spec")
                          .path("containers")
                          .get(0));
            }));

    // the opt-in annotation under both spellings: shop carries the documented inject: enabled,
    // alias mesh-injector.io/inject: enabled, and mixed both, disagreeing
    for (String namespace : List.of("shop", "alias")) {
      ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", namespace, Reviews.examplePod());
      cases.add(
          review(
              "namespace " + namespace + " opts in: injected",
              review,
              200,
              a -> {
                JsonNode response = a.response();
                assertThat(response.path("allowed").asBoolean()).isTrue();
                assertThat(response.path("auditAnnotations").path("outcome").asText())
                    .isEqualTo("injected");
                assertThat(
                        text(
                            patchedPod(review, response)
                                .path("metadata")
                                .path("annotations")
                                .path("mesh-injector.io/decision")))
                    .isEqualTo("init/nft native-sidecar await");
                assertThat(response.has("warnings")).isFalse();
              }));
    }
    cases.add(
        review(
            "namespace mixed, both spellings disagreeing: disabled wins, with a warning",
            Reviews.podCreate("admission.k8s.io/v1", "mixed", Reviews.examplePod()),
            200,
            a -> {
              JsonNode response = a.response();
              assertThat(response.path("allowed").asBoolean()).isTrue();
              assertThat(response.has("patch")).isFalse();
              assertThat(response.path("auditAnnotations").path("outcome").asText())
                  .isEqualTo("injection-disabled");
              assertThat(warnings(response))
                  .singleElement()
                  .asString()
                  .contains(
                      "namespace mixed carries both inject: enabled and mesh-injector.io/inject:"
                          + " disabled",
                      "disabled wins");
            }));

    ObjectNode v1beta1 =
        Reviews.podCreate("admission.k8s.io/v1beta1", "shop", Reviews.examplePod());
    cases.add(
        review(
            "v1beta1 is answered in v1beta1",
            v1beta1,
            200,
            a -> {
              assertThat(a.json().path("apiVersion").asText())
                  .isEqualTo("admission.k8s.io/v1beta1");
              assertThat(a.response().path("uid").asText())
                  .isEqualTo(v1beta1.path("request").path("uid").asText());
              assertThat(a.response().path("patchType").asText()).isEqualTo("JSONPatch");
            }));

    ObjectNode withoutNamespace = Reviews.examplePod();
    assertThat(withoutNamespace.path("metadata").has("namespace")).isFalse();
    ObjectNode inShop = Reviews.podCreate("admission.k8s.io/v1", "shop", withoutNamespace);
    cases.add(
        review(
            "a pod without a namespace takes the request's",
            inShop,
            200,
            a -> {
              assertThat(a.response().path("patch").isTextual()).isTrue();
              assertThat(
                      text(
                          patchedPod(inShop, a.response())
                              .path("metadata")
                              .path("annotations")
                              .path("mesh-injector.io/decision")))
                  .isEqualTo("init/nft native-sidecar await");
            }));

    ObjectNode arm = Reviews.examplePod();
    // no node of the cluster is in this pool: the engine decides for a node it knows nothing of
    ((ObjectNode) arm.path("spec")).putObject("nodeSelector").put("pool", "arm");
    cases.add(
        review(
            "the decision's warnings go into response.warnings",
            Reviews.podCreate("admission.k8s.io/v1", "shop", arm),
            200,
            a -> {
              assertThat(a.response().path("allowed").asBoolean()).isTrue();
              List<String> warnings = warnings(a.response());
              assertThat(warnings).anyMatch(w -> w.contains("capabilities are all unknown"));

              Pod typed = Reviews.JSON.treeToValue(arm, Pod.class);
              typed.getMetadata().setNamespace("shop");
              Decision expected =
                  new RuleEngine(CONFIG.engine(), Clock.systemUTC())
                      .decide(
                          PodAdmission.workload(typed.getMetadata(), "checkout-6d4cf56db6-*"),
                          typed,
                          VIEW);
              assertThat(warnings).isEqualTo(expected.warnings());
            }));
  }

  private static void refusedOrUntouched(List<Case> cases) throws Exception {
    cases.add(
        review(
            "the same pod in a namespace that is not enabled is admitted untouched",
            Reviews.podCreate("admission.k8s.io/v1", "legacy-apps", Reviews.examplePod()),
            200,
            a -> {
              assertThat(a.response().path("allowed").asBoolean()).isTrue();
              assertThat(a.response().has("patch")).isFalse();
              assertThat(a.response().path("auditAnnotations").path("outcome").asText())
                  .isEqualTo("not-enabled");
            }));

    ObjectNode teleport = Reviews.examplePod();
    ((ObjectNode) teleport.path("metadata"))
        .putObject("annotations")
        .put("mesh-injector.io/redirect", "teleport");
    cases.add(
        review(
            "a refusal is an admission with status 403 and the reason",
            Reviews.podCreate("admission.k8s.io/v1", "shop", teleport),
            200,
            a -> {
              JsonNode response = a.response();
              assertThat(response.path("allowed").asBoolean()).isFalse();
              assertThat(response.path("status").path("code").asInt()).isEqualTo(403);
              assertThat(response.path("status").path("message").asText())
                  .contains("mesh-injector.io/redirect")
                  .contains("teleport");
              assertThat(response.has("patch")).isFalse();
            }));

    ObjectNode deployment = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ObjectNode kind = (ObjectNode) deployment.path("request").path("kind");
    kind.put("group", "apps");
    kind.put("kind", "Deployment");
    cases.add(
        review(
            "another kind is allowed without a patch",
            deployment,
            200,
            a -> {
              assertThat(a.response().path("allowed").asBoolean()).isTrue();
              assertThat(a.response().has("patch")).isFalse();
            }));

    ObjectNode update = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) update.path("request")).put("operation", "UPDATE");
    cases.add(
        review(
            "another operation is allowed without a patch",
            update,
            200,
            a -> {
              assertThat(a.response().path("allowed").asBoolean()).isTrue();
              assertThat(a.response().has("patch")).isFalse();
              assertThat(a.response().path("uid").asText())
                  .isEqualTo(update.path("request").path("uid").asText());
            }));
  }

  private static void transportOfTheBody(List<Case> cases) throws Exception {
    ObjectNode padded = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) padded.path("request")).put("padding", "x".repeat(MAX_BODY));
    cases.add(
        review(
            "a body over the limit is 413",
            padded,
            413,
            a -> {
              assertThat(a.json().path("reason").asText()).isEqualTo("RequestEntityTooLarge");
              assertThat(a.message()).contains(String.valueOf(MAX_BODY));
            }));

    byte[] example = Reviews.JSON.writeValueAsBytes(Reviews.exampleJson("admission-review.json"));
    for (String type : List.of("text/plain", "application/x-www-form-urlencoded")) {
      cases.add(
          new Case(
              "content type " + type + " is 415",
              type,
              example,
              null,
              415,
              a -> {
                assertThat(a.json().path("reason").asText()).isEqualTo("UnsupportedMediaType");
                assertThat(a.message()).contains("'" + type + "'");
              }));
    }
    cases.add(
        new Case(
            "content type application/json; charset=utf-8 is an admission",
            "application/json; charset=utf-8",
            example,
            Reviews.exampleJson("admission-review.json"),
            200,
            a -> assertThat(a.response().path("allowed").asBoolean()).isTrue()));

    cases.add(
        raw(
            "malformed JSON is 400 with a message",
            "{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\":",
            400,
            a -> {
              assertThat(a.message())
                  .startsWith("the body is not valid JSON: Unexpected end-of-input")
                  .containsPattern("\\(line 1, column \\d+\\)$");
              namesNoInternals(a);
              assertThat(a.body()).doesNotContain("at com.fasterxml", "at io.meshinjector");
            }));
    cases.add(
        raw(
            "JSON after the AdmissionReview is 400",
            Reviews.exampleJson("admission-review.json") + " {}",
            400,
            a -> {
              assertThat(a.message())
                  .startsWith("the body is not valid JSON: more JSON follows the AdmissionReview");
              namesNoInternals(a);
            }));

    ObjectNode deep = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    String nested = "[".repeat(200) + "]".repeat(200);
    cases.add(
        raw(
            "nesting deeper than the limit is 400",
            deep.toString()
                .replace("\"operation\":\"CREATE\"", "\"operation\":\"CREATE\",\"deep\":" + nested),
            400,
            a -> {
              assertThat(a.message())
                  .startsWith("the JSON at /request/deep/0/0/")
                  .endsWith(" is nested deeper than 40 levels");
              namesNoInternals(a);
            }));

    ObjectNode longString = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) longString.path("request")).put("long", "y".repeat(MAX_STRING + 1));
    cases.add(
        review(
            "a string longer than the limit is 400",
            longString,
            400,
            a -> {
              assertThat(a.message())
                  .isEqualTo(
                      "a string at /request/long is longer than " + MAX_STRING + " characters");
              namesNoInternals(a);
            }));
  }

  private static void notAReview(List<Case> cases) throws Exception {
    cases.add(
        raw(
            "a review without a request is 400",
            "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}",
            400,
            a -> assertThat(a.message()).contains("no request")));

    ObjectNode noUid = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) noUid.path("request")).remove("uid");
    cases.add(
        review(
            "a request without a uid is 400",
            noUid,
            400,
            a -> assertThat(a.message()).contains("no uid")));
  }

  private static void notAPod(List<Case> cases) throws Exception {
    ObjectNode specNotAnObject =
        Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) specNotAnObject.path("request").path("object")).put("spec", "not an object");
    cases.add(invalidPod(specNotAnObject, "spec must be an object"));

    ObjectNode notAList = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) notAList.path("request").path("object").path("spec"))
        .putObject("containers")
        .put("name", "app");
    cases.add(invalidPod(notAList, "spec.containers must be a list"));

    ObjectNode notANumber = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) notANumber.path("request").path("object").path("spec").path("containers").get(0))
        .putArray("ports")
        .addObject()
        .put("containerPort", "http");
    cases.add(
        invalidPod(notANumber, "spec.containers[0].ports[0].containerPort must be an integer"));

    // pods the engine cannot take: each is a 400 naming where
    String required = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
    String[][] specs = {
      {"{\"containers\": [null]}", "spec.containers[0] is null"},
      {"{\"initContainers\": [null]}", "spec.initContainers[0] is null"},
      {
        "{\"affinity\": {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\":"
            + " {\"nodeSelectorTerms\": [null]}}}}",
        "spec." + required + ".nodeSelectorTerms[0] is null"
      },
      {
        "{\"affinity\": {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\":"
            + " {\"nodeSelectorTerms\": [{\"matchExpressions\": [null]}]}}}}",
        "spec." + required + ".nodeSelectorTerms[0].matchExpressions[0] is null"
      },
      {
        "{\"affinity\": {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\":"
            + " {\"nodeSelectorTerms\": [{\"matchFields\": [null]}]}}}}",
        "spec." + required + ".nodeSelectorTerms[0].matchFields[0] is null"
      },
      {"{\"tolerations\": [null]}", "spec.tolerations[0] is null"},
      {"{\"volumes\": [null]}", "spec.volumes[0] is null"},
      {
        "{\"containers\": [{\"name\": \"app\", \"image\": \"app\", \"ports\": [null]}]}",
        "spec.containers[0].ports[0] is null"
      },
      {
        "{\"containers\": [{\"name\": \"app\", \"image\": \"app\", \"env\": [null]}]}",
        "spec.containers[0].env[0] is null"
      },
      {"{\"containers\": [{\"image\": \"app\"}]}", "spec.containers[0].name is missing"},
      {
        "{\"initContainers\": [{\"name\": null, \"image\": \"app\"}]}",
        "spec.initContainers[0].name is missing"
      },
      {"{\"nodeSelector\": {\"pool\": null}}", "spec.nodeSelector[pool] is null"},
    };
    for (String[] spec : specs) {
      ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
      ((ObjectNode) review.path("request").path("object").path("spec"))
          .setAll((ObjectNode) Reviews.JSON.readTree(spec[0]));
      cases.add(invalidPod(review, spec[1]));
    }

    ObjectNode nullOwner = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    ((ObjectNode) nullOwner.path("request").path("object").path("metadata"))
        .putArray("ownerReferences")
        .addNull();
    cases.add(invalidPod(nullOwner, "metadata.ownerReferences[0] is null"));
  }

  // ---------------------------------------------------------------- row builders

  /** A row whose body is {@code review} as JSON. */
  private static Case review(String name, JsonNode review, int status, Check check)
      throws Exception {
    return new Case(
        name, "application/json", Reviews.JSON.writeValueAsBytes(review), review, status, check);
  }

  /** A row whose body is {@code text}, not written from a review. */
  private static Case raw(String name, String text, int status, Check check) {
    return new Case(
        name, "application/json", text.getBytes(StandardCharsets.UTF_8), null, status, check);
  }

  /** A pod that is not a valid Pod: 400, naming the problem. */
  private static Case invalidPod(JsonNode review, String problem) throws Exception {
    return review(
        "not a valid Pod: " + problem,
        review,
        400,
        a -> {
          assertThat(a.json().path("reason").asText()).isEqualTo("BadRequest");
          assertThat(a.message()).isEqualTo("request.object is not a valid Pod: " + problem);
        });
  }

  // ---------------------------------------------------------------- checks

  /** The check after every row: the same endpoint still injects a valid request. */
  static void validRequestStillSucceeds() throws Exception {
    ObjectNode review = Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
    Answer a = answer("application/json", Reviews.JSON.writeValueAsBytes(review));
    assertThat(a.status()).as("a valid request after the row").isEqualTo(200);
    JsonNode response = a.response();
    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
    assertThat(patchedPod(review, response).path("metadata").path("annotations").isObject())
        .isTrue();
    assertThat(
            patchedPod(review, response)
                .path("metadata")
                .path("annotations")
                .has("mesh-injector.io/decision"))
        .isTrue();
  }

  /** The response's patch (JSONPatch, base64) applied to the request's pod with Parsson. */
  static JsonNode patchedPod(JsonNode review, JsonNode response) throws Exception {
    assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
    JsonNode patch =
        Reviews.JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
    return Parsson.apply(patch, review.path("request").path("object"));
  }

  static List<String> warnings(JsonNode response) {
    List<String> warnings = new ArrayList<>();
    response.path("warnings").forEach(w -> warnings.add(w.asText()));
    return warnings;
  }

  /** A JSON string's value; fails on any other node, as {@code JsonObject.getString} does. */
  static String text(JsonNode node) {
    assertThat(node.isTextual()).as("a JSON string: %s", node).isTrue();
    return node.textValue();
  }

  /** Jackson's and fabric8's own words: class names, features, methods. */
  static void namesNoInternals(Answer a) {
    assertThat(a.message())
        .doesNotContain("`", "java.", "fabric8", "jackson", "StreamReadConstraints", "Source");
  }
}
