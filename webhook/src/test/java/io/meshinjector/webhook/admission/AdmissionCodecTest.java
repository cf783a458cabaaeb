package io.meshinjector.webhook.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.webhook.support.Reviews;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The 400 messages name what is wrong and where, in the caller's terms, not Jackson's. */
class AdmissionCodecTest {
  private final AdmissionCodec codec = new AdmissionCodec(10, 100);

  private String podError(String specFields) throws Exception {
    ObjectNode pod = Reviews.examplePod();
    ((ObjectNode) pod.path("spec")).setAll((ObjectNode) Reviews.JSON.readTree(specFields));
    try {
      codec.pod(pod);
    } catch (InvalidPod e) {
      return Problems.invalidObject(e);
    }
    throw new AssertionError("read as a Pod: " + specFields);
  }

  private String bodyError(String body) {
    try {
      codec.read(body.getBytes(StandardCharsets.UTF_8));
    } catch (BadRequest e) {
      return e.getMessage();
    }
    throw new AssertionError("read: " + body);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"containers\": {}}|spec.containers must be a list",
        "{\"containers\": \"app\"}|spec.containers must be a list",
        "{\"containers\": [1]}|spec.containers[0] must be an object",
        "{\"nodeSelector\": []}|spec.nodeSelector must be an object",
        "{\"restartPolicy\": {}}|spec.restartPolicy must be a string",
        "{\"hostNetwork\": \"maybe\"}|spec.hostNetwork must be true or false",
        "{\"containers\": [{\"name\": \"a\", \"ports\": [{\"containerPort\": \"http\"}]}]}"
            + "|spec.containers[0].ports[0].containerPort must be an integer",
        "{\"containers\": [{\"name\": \"a\", \"readinessProbe\": {\"httpGet\": {\"port\": []}}}]}"
            + "|spec.containers[0].readinessProbe.httpGet.port must be an integer or a string",
      })
  void aValueOfTheWrongTypeIsNamedByItsPath(String specFields, String problem) throws Exception {
    String message = podError(specFields);
    assertThat(message).isEqualTo("request.object is not a valid Pod: " + problem);
    assertThat(message).doesNotContain("`", "java.", "fabric8", "Cannot");
  }

  @Test
  void aStringOverTheLimitIsNamedWithTheLimitAndWhere() {
    String message =
        bodyError("{\"request\": {\"uid\": \"u\", \"note\": \"" + "x".repeat(101) + "\"}}");
    assertThat(message).isEqualTo("a string at /request/note is longer than 100 characters");
  }

  @Test
  void nestingOverTheLimitIsNamedWithTheLimit() {
    String message = bodyError("{\"request\": " + "[".repeat(20) + "]".repeat(20) + "}");
    assertThat(message)
        .startsWith("the JSON at /request/0/0/")
        .endsWith(" is nested deeper than 10 levels")
        .doesNotContain("StreamReadConstraints", "`");
  }

  @Test
  void aNumberOverTheLimitIsNamed() {
    // Jackson counts a long number's text against the string limit too: keep that one out of reach
    AdmissionCodec roomyStrings = new AdmissionCodec(10, 1 << 20);
    byte[] body = ("{\"n\": 1" + "0".repeat(1500) + "}").getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> roomyStrings.read(body))
        .isInstanceOf(BadRequest.class)
        .hasMessage("a number at /n is longer than 1000 digits");
  }

  @Test
  void syntaxErrorsSayWhereWithoutJacksonsSourceDescription() {
    assertThat(bodyError("{\"apiVersion\": "))
        .startsWith("the body is not valid JSON: Unexpected end-of-input")
        .endsWith("(line 1, column 16)")
        .doesNotContain("Source", "`", "REDACTED");
    assertThat(bodyError("{\"a\": 1} {}"))
        .isEqualTo(
            "the body is not valid JSON: more JSON follows the AdmissionReview (line 1, column 10)");
  }

  @Test
  void aValidPodIsRead() {
    JsonNode pod = Reviews.examplePod();
    assertThat(codec.pod(pod).getSpec().getContainers()).hasSize(1);
  }

  @Test
  void somethingNotAPodAtAllIsStillA400() {
    assertThatThrownBy(() -> codec.pod(Reviews.JSON.readTree("[1, 2]")))
        .isInstanceOfSatisfying(
            InvalidPod.class,
            e ->
                assertThat(Problems.invalidObject(e))
                    .isEqualTo("request.object is not a valid Pod: the Pod must be an object"));
  }

  @Test
  void encodingReusesTheThreadsBufferAndEachAnswerIsWhole() throws Exception {
    AdmissionCodec wide = new AdmissionCodec(100, 1 << 20);
    byte[] review = Reviews.JSON.writeValueAsBytes(Reviews.exampleJson("admission-review.json"));
    AdmissionRequest request = wide.read(review);
    ArrayNode patch = Reviews.JSON.createArrayNode();
    patch.addObject().put("op", "add").put("path", "/metadata/labels/a").put("value", "b\u00e9");
    AdmissionReply patched = AdmissionReply.patched(request, patch, List.of("w"), Map.of());

    AdmissionCodec.Encoded first = wide.encode(patched);
    JsonNode large = Reviews.JSON.readTree(first.bytes(), 0, first.length());
    AdmissionCodec.Encoded second = wide.encode(AdmissionReply.badRequest("no"));
    JsonNode small = Reviews.JSON.readTree(second.bytes(), 0, second.length());

    assertThat(second.bytes()).as("one buffer per thread").isSameAs(first.bytes());
    // the patch as the API server decodes it: standard base64 of the JSON Patch's UTF-8 bytes
    byte[] sent =
        java.util.Base64.getDecoder().decode(large.path("response").path("patch").asText());
    assertThat(Reviews.JSON.readTree(sent)).isEqualTo(patch);
    assertThat(large.path("response").path("uid").asText()).isEqualTo(request.uid());
    assertThat(small.path("kind").asText()).isEqualTo("Status");
    assertThat(small.path("message").asText()).isEqualTo("no");
  }
}
