package io.meshinjector.webhook.revisions;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.meshinjector.engine.revisions.RevisionNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A tag: a MutatingWebhookConfiguration of its own, {@code mesh-injector-tag-<tag>}, whose entries
 * route the tag's namespaces to one revision. Moving a tag is one update of this one object (its
 * client, CA bundle, revision label and owner change together), which every API server sees whole,
 * old or new, never half done.
 *
 * <p>Its owner is the webhook configuration of the revision it points at, so uninstalling that
 * release removes the tag with it (its namespaces are then admitted without injection, as after an
 * uninstall before revisions) instead of leaving an entry that fails closed on a Service that is
 * gone. {@code check} says a revision a tag points at may not be retired.
 */
public final class TagWebhooks {
  /** The annotation on a revision's webhook configuration naming its routes' failure policy. */
  public static final String FAILURE_POLICY = "mesh-injector.io/failure-policy";

  private TagWebhooks() {}

  /**
   * The tag {@code tag} pointing at the revision whose webhook configuration is {@code revision}.
   *
   * @param previous the tag as it is now, or null for a new tag: its CA bundle is kept beside the
   *     new revision's, so an API server whose client cache still holds the old connection's bundle
   *     has both
   * @throws IllegalArgumentException when {@code revision} is not a revision's webhook
   *     configuration
   */
  public static MutatingWebhookConfiguration pointing(
      String tag, MutatingWebhookConfiguration revision, MutatingWebhookConfiguration previous) {
    RevisionNames.problem(tag)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException(p);
            });
    String revisionName =
        revisionOf(revision)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        revision.getMetadata().getName()
                            + " is not a revision's webhook configuration (no label "
                            + RevisionNames.REVISION_LABEL
                            + ")"));
    MutatingWebhook catchAll =
        catchAll(revision)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        revision.getMetadata().getName()
                            + " has no entry "
                            + RouteEntries.CATCH_ALL
                            + " to route from"));
    String policy =
        Optional.ofNullable(revision.getMetadata().getAnnotations())
            .map(a -> a.get(FAILURE_POLICY))
            .orElse("Fail");
    List<MutatingWebhook> entries = RouteEntries.forName(tag, catchAll, policy);
    String oldBundle = previous == null ? null : bundleOf(previous);
    if (oldBundle != null) {
      for (MutatingWebhook e : entries) {
        String merged = CaBundles.union(e.getClientConfig().getCaBundle(), oldBundle);
        e.getClientConfig().setCaBundle(merged);
      }
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app.kubernetes.io/name", "mesh-injector");
    labels.put("app.kubernetes.io/managed-by", "mesh-injector");
    labels.put(RevisionNames.TAG_LABEL, tag);
    labels.put(RevisionNames.REVISION_LABEL, revisionName);
    MutatingWebhookConfigurationBuilder b =
        new MutatingWebhookConfigurationBuilder()
            .withNewMetadata()
            .withName(RevisionNames.tagObjectName(tag))
            .withLabels(labels)
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("admissionregistration.k8s.io/v1")
                    .withKind("MutatingWebhookConfiguration")
                    .withName(revision.getMetadata().getName())
                    .withUid(revision.getMetadata().getUid())
                    .build())
            .endMetadata()
            .withWebhooks(entries);
    if (previous != null) {
      b.editMetadata()
          .withResourceVersion(previous.getMetadata().getResourceVersion())
          .endMetadata();
    }
    return b.build();
  }

  /** The revision a revision's or tag's webhook configuration sends pods to. */
  public static Optional<String> revisionOf(MutatingWebhookConfiguration mwc) {
    Map<String, String> labels = mwc.getMetadata().getLabels();
    return labels == null
        ? Optional.empty()
        : Optional.ofNullable(labels.get(RevisionNames.REVISION_LABEL));
  }

  /** The tag a webhook configuration is, or empty for a revision's own. */
  public static Optional<String> tagOf(MutatingWebhookConfiguration mwc) {
    Map<String, String> labels = mwc.getMetadata().getLabels();
    return labels == null
        ? Optional.empty()
        : Optional.ofNullable(labels.get(RevisionNames.TAG_LABEL));
  }

  /** A revision's catch-all entry. */
  public static Optional<MutatingWebhook> catchAll(MutatingWebhookConfiguration revision) {
    if (revision.getWebhooks() == null) {
      return Optional.empty();
    }
    return revision.getWebhooks().stream()
        .filter(w -> RouteEntries.CATCH_ALL.equals(w.getName()))
        .findFirst();
  }

  private static String bundleOf(MutatingWebhookConfiguration mwc) {
    if (mwc.getWebhooks() == null || mwc.getWebhooks().isEmpty()) {
      return null;
    }
    MutatingWebhook first = mwc.getWebhooks().get(0);
    return first.getClientConfig() == null ? null : first.getClientConfig().getCaBundle();
  }
}
