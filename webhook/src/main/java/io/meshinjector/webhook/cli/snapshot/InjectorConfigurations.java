package io.meshinjector.webhook.cli.snapshot;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.webhook.revisions.RevisionsRead;
import io.meshinjector.webhook.revisions.TagWebhooks;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The webhook configurations of a cluster's revisions and tags (those labelled {@value
 * RevisionNames#REVISION_LABEL}), read once for the commands that run once: {@code tag}, {@code
 * check} and {@code explain}. {@code serve} watches the same objects ({@code RevisionsWatch}).
 */
public final class InjectorConfigurations {
  private final List<MutatingWebhookConfiguration> all;

  InjectorConfigurations(List<MutatingWebhookConfiguration> all) {
    List<MutatingWebhookConfiguration> sorted = new ArrayList<>(all);
    sorted.sort(Comparator.comparing(m -> m.getMetadata().getName()));
    this.all = List.copyOf(sorted);
  }

  /**
   * @throws ClusterReadException when the list fails, naming the cause
   */
  public static InjectorConfigurations read(KubernetesClient client) {
    try {
      return new InjectorConfigurations(
          client
              .admissionRegistration()
              .v1()
              .mutatingWebhookConfigurations()
              .withLabel(RevisionNames.REVISION_LABEL)
              .list()
              .getItems());
    } catch (KubernetesClientException e) {
      throw new ClusterReadException(
          "listing mutatingwebhookconfigurations labelled "
              + RevisionNames.REVISION_LABEL
              + " failed: "
              + ClusterSnapshot.cause(e),
          e);
    }
  }

  /** Every configuration read, by name. */
  public List<MutatingWebhookConfiguration> all() {
    return all;
  }

  /** The served revisions and where the tags point, as the webhooks read them. */
  public Revisions revisions() {
    return RevisionsRead.from(all);
  }

  /**
   * The configurations that claim to be {@code revision}'s own (its label, no tag label): one for a
   * served revision, none for an unknown one, more when two releases were installed with one
   * revision name.
   */
  public List<MutatingWebhookConfiguration> ownOf(String revision) {
    return all.stream()
        .filter(m -> TagWebhooks.tagOf(m).isEmpty())
        .filter(m -> TagWebhooks.revisionOf(m).orElse("").equals(revision))
        .toList();
  }

  /** Tag {@code tag}'s configuration, found by its object name. */
  public Optional<MutatingWebhookConfiguration> tag(String tag) {
    String name = RevisionNames.tagObjectName(tag);
    return all.stream()
        .filter(m -> m.getMetadata().getName().equals(name))
        .filter(m -> TagWebhooks.tagOf(m).isPresent())
        .findFirst();
  }

  /** The revisions that more than one configuration claims, each with those configurations. */
  public Map<String, List<String>> claimedTwice() {
    Map<String, List<String>> byRevision = new TreeMap<>();
    for (MutatingWebhookConfiguration m : all) {
      if (TagWebhooks.tagOf(m).isEmpty()) {
        TagWebhooks.revisionOf(m)
            .ifPresent(
                r ->
                    byRevision
                        .computeIfAbsent(r, k -> new ArrayList<>())
                        .add(m.getMetadata().getName()));
      }
    }
    byRevision.values().removeIf(names -> names.size() < 2);
    return byRevision;
  }
}
