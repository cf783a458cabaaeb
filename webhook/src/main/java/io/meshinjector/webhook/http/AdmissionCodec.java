package io.meshinjector.webhook.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Reads AdmissionReviews from the raw body and writes the answers, with one Jackson 2 mapper that
 * knows the fabric8 model (Spring's own JSON is Jackson 3 and never sees these bodies).
 */
public final class AdmissionCodec {
  public static final String V1 = "admission.k8s.io/v1";
  public static final String V1BETA1 = "admission.k8s.io/v1beta1";

  private final ObjectMapper mapper;
  private final ObjectReader bodyReader;

  public AdmissionCodec(int maxNestingDepth, int maxStringLength) {
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(maxNestingDepth)
                    .maxStringLength(maxStringLength)
                    .build())
            .build();
    this.mapper =
        new ObjectMapper(factory)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    // only for the body: treeToValue with this feature on fails on every nested object
    this.bodyReader =
        mapper.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  public ObjectMapper mapper() {
    return mapper;
  }

  /**
   * The request of an AdmissionReview body.
   *
   * @throws BadRequest naming what is wrong
   */
  public AdmissionRequest read(byte[] body) {
    JsonNode root;
    try {
      root = bodyReader.readValue(body);
    } catch (JsonProcessingException e) {
      throw new BadRequest("the body is not valid JSON: " + shorten(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new BadRequest("the body cannot be read: " + shorten(e.getMessage()));
    }
    if (root == null || !root.isObject()) {
      throw new BadRequest("the body is not a JSON object");
    }
    String apiVersion = root.path("apiVersion").asText("");
    if (!V1.equals(apiVersion) && !V1BETA1.equals(apiVersion)) {
      throw new BadRequest(
          "apiVersion '" + apiVersion + "' is not supported: send " + V1 + " or " + V1BETA1);
    }
    if (!"AdmissionReview".equals(root.path("kind").asText(""))) {
      throw new BadRequest("kind must be AdmissionReview");
    }
    JsonNode request = root.get("request");
    if (request == null || !request.isObject()) {
      throw new BadRequest("the AdmissionReview has no request");
    }
    JsonNode uid = request.get("uid");
    if (uid == null || !uid.isTextual() || uid.asText().isBlank()) {
      throw new BadRequest("the AdmissionReview's request has no uid");
    }
    JsonNode kind = request.path("kind");
    JsonNode object = request.get("object");
    return new AdmissionRequest(
        apiVersion,
        uid.asText(),
        kind.path("group").asText(""),
        kind.path("kind").asText(""),
        request.path("subResource").asText(""),
        request.path("operation").asText(""),
        request.path("namespace").asText(""),
        request.path("name").asText(""),
        object == null || object.isNull() ? null : object);
  }

  /** The HTTP body of {@code reply}. */
  public byte[] write(AdmissionReply reply) {
    ObjectNode body;
    if (reply instanceof AdmissionReply.Failed f) {
      body = mapper.createObjectNode();
      body.put("apiVersion", "v1");
      body.put("kind", "Status");
      body.put("status", "Failure");
      body.put("reason", f.reason());
      body.put("message", f.message());
      body.put("code", f.httpStatus());
    } else if (reply instanceof AdmissionReply.Allowed a) {
      body = review(a.request(), true, a.warnings(), a.audit());
    } else if (reply instanceof AdmissionReply.Patched p) {
      body = review(p.request(), true, p.warnings(), p.audit());
      ObjectNode response = (ObjectNode) body.get("response");
      response.put("patchType", "JSONPatch");
      response.put("patch", Base64.getEncoder().encodeToString(bytes(p.patch())));
    } else {
      AdmissionReply.Refused r = (AdmissionReply.Refused) reply;
      body = review(r.request(), false, r.warnings(), r.audit());
      ObjectNode status = ((ObjectNode) body.get("response")).putObject("status");
      status.put("code", 403);
      status.put("reason", "Forbidden");
      status.put("message", r.message());
    }
    return bytes(body);
  }

  private ObjectNode review(
      AdmissionRequest request, boolean allowed, List<String> warnings, Map<String, String> audit) {
    ObjectNode body = mapper.createObjectNode();
    body.put("apiVersion", request.apiVersion());
    body.put("kind", "AdmissionReview");
    ObjectNode response = body.putObject("response");
    response.put("uid", request.uid());
    response.put("allowed", allowed);
    if (!warnings.isEmpty()) {
      ArrayNode w = response.putArray("warnings");
      warnings.forEach(w::add);
    }
    if (!audit.isEmpty()) {
      ObjectNode a = response.putObject("auditAnnotations");
      new java.util.TreeMap<>(audit).forEach(a::put);
    }
    return body;
  }

  private byte[] bytes(JsonNode node) {
    try {
      return mapper.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a JSON tree", e);
    }
  }

  static String shorten(String message) {
    if (message == null) {
      return "";
    }
    String line = message.lines().findFirst().orElse("");
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }

  /** A body that is not a usable AdmissionReview; the message is for the caller. */
  public static final class BadRequest extends RuntimeException {
    public BadRequest(String message) {
      super(message);
    }
  }
}
