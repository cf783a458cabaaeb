package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
  private final StreamReadConstraints limits;

  public AdmissionCodec(int maxNestingDepth, int maxStringLength) {
    this.limits =
        StreamReadConstraints.builder()
            .maxNestingDepth(maxNestingDepth)
            .maxStringLength(maxStringLength)
            .build();
    JsonFactory factory = JsonFactory.builder().streamReadConstraints(limits).build();
    this.mapper =
        new ObjectMapper(factory)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            // generated accessors: reflection over the fabric8 model led the admission profile
            .registerModule(new BlackbirdModule());
    // only for the body: treeToValue with this feature on fails on every nested object
    this.bodyReader =
        mapper.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  /**
   * The request of an AdmissionReview body.
   *
   * @throws BadRequest naming what is wrong
   */
  public AdmissionRequest read(byte[] body) {
    JsonNode root;
    JsonParser parser = null;
    try {
      // kept for where it stopped: a limit's exception does not say
      parser = bodyReader.createParser(body);
      root = bodyReader.readValue(parser);
    } catch (StreamConstraintsException e) {
      throw new BadRequest(Problems.overReadLimit(e, parser, limits));
    } catch (JsonProcessingException e) {
      throw new BadRequest(Problems.notJson(e));
    } catch (IOException e) {
      throw new BadRequest(Problems.UNREADABLE_BODY);
    } finally {
      close(parser);
    }
    if (root == null || !root.isObject()) {
      throw new BadRequest(Problems.NOT_AN_OBJECT);
    }
    String apiVersion = root.path("apiVersion").asText("");
    if (!V1.equals(apiVersion) && !V1BETA1.equals(apiVersion)) {
      throw new BadRequest(Problems.unsupportedApiVersion(apiVersion));
    }
    if (!"AdmissionReview".equals(root.path("kind").asText(""))) {
      throw new BadRequest(Problems.NOT_A_REVIEW);
    }
    JsonNode request = root.get("request");
    if (request == null || !request.isObject()) {
      throw new BadRequest(Problems.NO_REQUEST);
    }
    JsonNode uid = request.get("uid");
    if (uid == null || !uid.isTextual() || uid.asText().isBlank()) {
      throw new BadRequest(Problems.NO_UID);
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

  /**
   * A pod tree, typed.
   *
   * @throws InvalidPod naming the JSON path that does not fit a Pod and what it should be
   */
  public Pod pod(JsonNode object) {
    try {
      return mapper.treeToValue(object, Pod.class);
    } catch (JsonMappingException e) {
      throw new InvalidPod(InvalidPod.Kind.NOT_A_POD, Problems.mismatch(e));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new InvalidPod(InvalidPod.Kind.NOT_A_POD, "it does not fit the Pod type");
    }
  }

  /**
   * The HTTP body of {@code reply} in this thread's buffer, valid until the thread encodes again:
   * the server writes it out at once, so no array is allocated and grown per answer.
   */
  public Encoded encode(AdmissionReply reply) {
    ReusableBuffer buffer = BUFFER.get();
    buffer.reset();
    try {
      mapper.writeValue(buffer, body(reply));
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialise a JSON tree", e);
    }
    Encoded encoded = new Encoded(buffer.bytes(), buffer.size());
    if (buffer.bytes().length > MAX_KEPT_BUFFER) {
      // a rare huge answer: not kept for the thread's lifetime
      BUFFER.remove();
    }
    return encoded;
  }

  /** The first {@code length} bytes of {@code bytes}. */
  public record Encoded(byte[] bytes, int length) {}

  private static final byte[] LAST_RESORT =
      ("{\"apiVersion\":\"v1\",\"kind\":\"Status\",\"status\":\"Failure\","
              + "\"reason\":\"InternalError\",\"code\":500}")
          .getBytes(StandardCharsets.UTF_8);

  /**
   * A 500's body for when no reply could be encoded (the connection failed, or the server itself
   * did): a Status the API server reads as an internal error. A copy, so no caller can change it.
   */
  public static Encoded lastResort() {
    return new Encoded(LAST_RESORT.clone(), LAST_RESORT.length);
  }

  private static final int MAX_KEPT_BUFFER = 256 * 1024;
  private static final ThreadLocal<ReusableBuffer> BUFFER =
      ThreadLocal.withInitial(ReusableBuffer::new);

  /** A ByteArrayOutputStream whose array is read in place instead of copied. */
  private static final class ReusableBuffer extends ByteArrayOutputStream {
    ReusableBuffer() {
      super(16 * 1024);
    }

    byte[] bytes() {
      return buf;
    }
  }

  private ObjectNode body(AdmissionReply reply) {
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
      // a binary node: Jackson writes it as standard base64 straight into the output
      response.put("patch", bytes(p.patch()));
    } else {
      AdmissionReply.Refused r = (AdmissionReply.Refused) reply;
      body = review(r.request(), false, r.warnings(), r.audit());
      ObjectNode status = ((ObjectNode) body.get("response")).putObject("status");
      status.put("code", 403);
      status.put("reason", "Forbidden");
      status.put("message", r.message());
    }
    return body;
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

  private static void close(JsonParser parser) {
    if (parser != null) {
      try {
        parser.close();
      } catch (IOException e) {
        // a parser over a byte array holds nothing to release
      }
    }
  }
}
