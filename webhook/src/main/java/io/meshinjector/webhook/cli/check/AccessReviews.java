package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One question to the API server's authorizer, for the user running {@code check} (a
 * SelfSubjectAccessReview) or for a ServiceAccount (a SubjectAccessReview): may it do this verb on
 * this resource? Both ask with the same attributes and read the same status.
 */
final class AccessReviews {
  private AccessReviews() {}

  /** The resource a review asks about; {@code namespace} null for every namespace. */
  static ResourceAttributes attributes(
      String verb, String group, String resource, String namespace) {
    return new ResourceAttributesBuilder()
        .withVerb(verb)
        .withGroup(group)
        .withResource(resource)
        .withNamespace(namespace)
        .build();
  }

  /**
   * Empty when the review allows it; otherwise what to add to the refused verb or resource: nothing
   * for a plain "no", or why the review itself failed.
   */
  static Optional<String> refusal(Supplier<SubjectAccessReviewStatus> answer) {
    try {
      SubjectAccessReviewStatus status = answer.get();
      return status != null && Boolean.TRUE.equals(status.getAllowed())
          ? Optional.empty()
          : Optional.of("");
    } catch (KubernetesClientException e) {
      return Optional.of(" (the review failed: " + ClusterSnapshot.cause(e) + ")");
    }
  }
}
