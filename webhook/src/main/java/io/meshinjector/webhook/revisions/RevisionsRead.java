package io.meshinjector.webhook.revisions;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.meshinjector.engine.revisions.Revisions;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** {@link Revisions} from the webhook configurations of a cluster's revisions and tags. */
public final class RevisionsRead {
  static final String HELM_RELEASE = "meta.helm.sh/release-name";
  static final String HELM_NAMESPACE = "meta.helm.sh/release-namespace";

  private RevisionsRead() {}

  public static Revisions from(Collection<MutatingWebhookConfiguration> configurations) {
    Map<String, Revisions.Release> revisions = new HashMap<>();
    Map<String, String> tags = new HashMap<>();
    for (MutatingWebhookConfiguration mwc : configurations) {
      Optional<String> revision = TagWebhooks.revisionOf(mwc);
      if (revision.isEmpty()) {
        continue;
      }
      Optional<String> tag = TagWebhooks.tagOf(mwc);
      if (tag.isPresent()) {
        tags.put(tag.get(), revision.get());
      } else {
        revisions.put(revision.get(), release(mwc));
      }
    }
    return new Revisions(true, revisions, tags);
  }

  /** The Helm release that installed a revision's configuration, from Helm's own annotations. */
  public static Revisions.Release release(MutatingWebhookConfiguration mwc) {
    Map<String, String> a = mwc.getMetadata().getAnnotations();
    Map<String, String> l = mwc.getMetadata().getLabels();
    String name = a == null ? null : a.get(HELM_RELEASE);
    if (name == null && l != null) {
      name = l.get("app.kubernetes.io/instance");
    }
    String namespace = a == null ? null : a.get(HELM_NAMESPACE);
    if (namespace == null) {
      namespace =
          TagWebhooks.catchAll(mwc)
              .map(w -> w.getClientConfig())
              .filter(c -> c != null && c.getService() != null)
              .map(c -> c.getService().getNamespace())
              .orElse("?");
    }
    return new Revisions.Release(namespace, name == null ? "?" : name, mwc.getMetadata().getName());
  }
}
