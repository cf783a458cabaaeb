package io.meshinjector.webhook.cli.tag;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.cli.check.Capped;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import io.meshinjector.webhook.cli.snapshot.InjectorConfigurations;
import io.meshinjector.webhook.revisions.TagWebhooks;
import java.util.List;

/**
 * {@code tag remove}: deletes a tag's webhook configuration. The default tag is what every opted-in
 * namespace without {@value RevisionNames#REV} follows; without it their pods reach only the
 * catch-all entries, which fail open, so it is kept unless forced.
 */
public final class TagRemover {
  /**
   * @param pointedAt the revision the tag pointed at
   * @param followers the namespaces whose routing label names it
   */
  public record Removal(String tag, String pointedAt, List<String> followers) {
    public Removal {
      followers = List.copyOf(followers);
    }
  }

  private final KubernetesClient client;

  public TagRemover(KubernetesClient client) {
    this.client = client;
  }

  /**
   * @throws TagRefused when there is no such tag, or it is {@code default} and not {@code force}d
   */
  public Removal remove(String tag, boolean force) {
    RevisionNames.problem(tag)
        .ifPresent(
            p -> {
              throw new TagRefused(p);
            });
    MutatingWebhookConfiguration current =
        InjectorConfigurations.read(client)
            .tag(tag)
            .orElseThrow(
                () ->
                    new TagRefused(
                        "there is no tag "
                            + tag
                            + " (no webhook configuration "
                            + RevisionNames.tagObjectName(tag)
                            + " labelled "
                            + RevisionNames.TAG_LABEL
                            + "); mesh-injector tag list shows the tags"));
    List<String> followers = RouteFollowers.of(client, tag);
    if (RevisionNames.DEFAULT.equals(tag) && !force) {
      throw new TagRefused(
          "tag "
              + RevisionNames.DEFAULT
              + " is followed by every opted-in namespace that names no revision: "
              + followers.size()
              + " namespaces ("
              + Capped.join(followers)
              + ") would be left without fail-closed injection, their pods reaching only the"
              + " catch-all entries, which fail open. Point it elsewhere with tag set, or give"
              + " --force");
    }
    try {
      client
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .withName(current.getMetadata().getName())
          .delete();
    } catch (KubernetesClientException e) {
      throw new TagRefused(
          "deleting " + current.getMetadata().getName() + " failed: " + ClusterSnapshot.cause(e));
    }
    return new Removal(tag, TagWebhooks.revisionOf(current).orElse("?"), followers);
  }
}
