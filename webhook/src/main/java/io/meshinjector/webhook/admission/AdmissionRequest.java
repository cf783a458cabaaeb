package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The parts of an AdmissionReview's request the webhook reads; the same in {@code v1} and {@code
 * v1beta1}.
 *
 * @param apiVersion the review's apiVersion, echoed in the answer
 * @param object the submitted object as received, or null (DELETE)
 */
public record AdmissionRequest(
    String apiVersion,
    String uid,
    String group,
    String kind,
    String subResource,
    String operation,
    String namespace,
    String name,
    JsonNode object) {

  public boolean isPodCreate() {
    return "".equals(group)
        && "Pod".equals(kind)
        && (subResource == null || subResource.isEmpty())
        && "CREATE".equals(operation);
  }
}
