package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every answer {@code POST /mutate} gives. An admission (allowed, patched or refused) is an HTTP
 * 200 AdmissionReview, as the API server expects; a request that cannot be answered is an HTTP
 * error, so the webhook's {@code failurePolicy} applies.
 */
public sealed interface AdmissionReply {

  /** The HTTP status of the reply. */
  int httpStatus();

  /** Admitted unchanged. */
  record Allowed(AdmissionRequest request, List<String> warnings, Map<String, String> audit)
      implements AdmissionReply {
    public Allowed {
      warnings = List.copyOf(warnings);
      audit = Map.copyOf(audit);
    }

    @Override
    public int httpStatus() {
      return 200;
    }
  }

  /** Admitted with a JSON Patch (never empty). */
  record Patched(
      AdmissionRequest request, ArrayNode patch, List<String> warnings, Map<String, String> audit)
      implements AdmissionReply {
    public Patched {
      Objects.requireNonNull(patch, "patch");
      warnings = List.copyOf(warnings);
      audit = Map.copyOf(audit);
    }

    @Override
    public int httpStatus() {
      return 200;
    }
  }

  /** Refused: {@code allowed: false}, status code 403 and the reason in {@code status.message}. */
  record Refused(
      AdmissionRequest request, String message, List<String> warnings, Map<String, String> audit)
      implements AdmissionReply {
    public Refused {
      Objects.requireNonNull(message, "message");
      warnings = List.copyOf(warnings);
      audit = Map.copyOf(audit);
    }

    @Override
    public int httpStatus() {
      return 200;
    }
  }

  /** Not an admission: a transport or server error, answered with a Kubernetes Status body. */
  record Failed(int httpStatus, String reason, String message) implements AdmissionReply {}

  static AdmissionReply allowed(AdmissionRequest request) {
    return new Allowed(request, List.of(), Map.of());
  }

  static AdmissionReply allowed(
      AdmissionRequest request, List<String> warnings, Map<String, String> audit) {
    return new Allowed(request, warnings, audit);
  }

  /** Patched, or simply allowed when the patch is empty. */
  static AdmissionReply patched(
      AdmissionRequest request, ArrayNode patch, List<String> warnings, Map<String, String> audit) {
    return patch.isEmpty()
        ? new Allowed(request, warnings, audit)
        : new Patched(request, patch, warnings, audit);
  }

  static AdmissionReply refused(
      AdmissionRequest request, String message, List<String> warnings, Map<String, String> audit) {
    return new Refused(request, message, warnings, audit);
  }

  static AdmissionReply badRequest(String message) {
    return new Failed(400, "BadRequest", message);
  }

  static AdmissionReply tooLarge(long limit) {
    return new Failed(
        413, "RequestEntityTooLarge", "the request body is larger than " + limit + " bytes");
  }

  static AdmissionReply unsupportedMediaType(String contentType) {
    return new Failed(
        415,
        "UnsupportedMediaType",
        "content type '" + contentType + "' is not supported: send application/json");
  }

  /** The caller learns only the UID to look for in the logs; never the exception. */
  static AdmissionReply errored(String uid) {
    return new Failed(
        500,
        "InternalError",
        "mesh-injector failed on request " + (uid == null ? "(no uid)" : uid) + "; see its log");
  }
}
