package io.meshinjector.webhook.cli.tag;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.VersionInfo;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import io.meshinjector.webhook.cli.snapshot.InjectorConfigurations;
import io.meshinjector.webhook.cli.snapshot.ServerVersion;
import io.meshinjector.webhook.revisions.RouteEntries;
import io.meshinjector.webhook.revisions.TagWebhooks;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;

/**
 * {@code tag set}: points a tag at a revision, creating it when the cluster has none of that name.
 * Moving a tag is one update of one object, the tag's webhook configuration, at the resourceVersion
 * read: a tag moved by someone else meanwhile is never overwritten. It is refused, with nothing
 * written, unless the revision is served by exactly one configuration and answers.
 */
public final class TagSetter {
  /** The first minor that evaluates matchConditions, which a tag's entries need. */
  static final int CONDITIONS_MINOR = 28;

  /**
   * What was done, or on a dry run what would be.
   *
   * @param from the revision the tag pointed at; empty when it is new
   * @param release the release that serves {@code to}
   * @param followers the namespaces whose routing label names the tag
   */
  public record Move(
      String tag,
      Optional<String> from,
      String to,
      Revisions.Release release,
      List<String> followers) {
    public Move {
      followers = List.copyOf(followers);
    }

    /** Whether the tag already pointed there, so nothing was to be written. */
    public boolean unchanged() {
      return from.isPresent() && from.get().equals(to);
    }
  }

  private final KubernetesClient client;

  public TagSetter(KubernetesClient client) {
    this.client = client;
  }

  /**
   * @param dryRun check everything and build the object, but write nothing
   * @throws TagRefused when a precondition fails or the tag changed meanwhile
   */
  public Move set(String tag, String revision, boolean dryRun) {
    RevisionNames.problem(tag)
        .ifPresent(
            p -> {
              throw new TagRefused(p);
            });
    requireMatchConditions();
    InjectorConfigurations read = InjectorConfigurations.read(client);
    Revisions revisions = read.revisions();
    if (revisions.revisions().containsKey(tag) && !RevisionNames.DEFAULT.equals(tag)) {
      // one name space for both: a namespace naming it would not know which it asked for
      throw new TagRefused(
          tag
              + " is the name of a served revision (release "
              + revisions.revisions().get(tag).describe()
              + "); a tag may not share it. Choose another name");
    }
    MutatingWebhookConfiguration own = ownConfiguration(read, revisions, revision);
    Revisions.Release release = revisions.revisions().get(revision);
    ReleaseReadiness.requireReady(client, revision, release, own);
    Optional<MutatingWebhookConfiguration> current = read.tag(tag);
    Optional<String> from = current.flatMap(TagWebhooks::revisionOf);
    List<String> followers = RouteFollowers.of(client, tag);
    if (from.isPresent() && from.get().equals(revision)) {
      return new Move(tag, from, revision, release, followers);
    }
    MutatingWebhookConfiguration desired;
    try {
      desired = TagWebhooks.pointing(tag, own, current.orElse(null));
    } catch (IllegalArgumentException e) {
      throw new TagRefused(e.getMessage());
    }
    if (!dryRun) {
      write(tag, desired, current.isPresent(), from);
      if (RevisionNames.DEFAULT.equals(tag)) {
        handOverFromTheRevisionDefault(read);
      }
    }
    return new Move(tag, from, revision, release, followers);
  }

  private void requireMatchConditions() {
    VersionInfo info;
    try {
      info = client.getKubernetesVersion();
    } catch (KubernetesClientException e) {
      throw new TagRefused("cannot read the API server's version: " + ClusterSnapshot.cause(e));
    }
    Optional<int[]> v = ServerVersion.parse(info);
    if (v.isEmpty()) {
      throw new TagRefused(
          "cannot tell the API server's version ("
              + (info == null ? "none" : info.getGitVersion())
              + "); a tag needs Kubernetes 1."
              + CONDITIONS_MINOR
              + " or later");
    }
    if (v.get()[0] < 1 || (v.get()[0] == 1 && v.get()[1] < CONDITIONS_MINOR)) {
      throw new TagRefused(
          "Kubernetes "
              + v.get()[0]
              + "."
              + v.get()[1]
              + " evaluates no matchConditions (1."
              + CONDITIONS_MINOR
              + "+), which a tag's entries need: without them two routes' entries would both"
              + " fail closed for one pod. Upgrade the cluster first");
    }
  }

  private static MutatingWebhookConfiguration ownConfiguration(
      InjectorConfigurations read, Revisions revisions, String revision) {
    List<MutatingWebhookConfiguration> own = read.ownOf(revision);
    if (own.isEmpty()) {
      String target = revisions.tags().get(revision);
      throw new TagRefused(
          target != null
              ? revision
                  + " is a tag (pointing at revision "
                  + target
                  + "), not a revision: a tag points at a revision, give --revision "
                  + target
              : "no release serves revision "
                  + revision
                  + " (no webhook configuration labelled "
                  + RevisionNames.REVISION_LABEL
                  + "="
                  + revision
                  + " without a tag label); served: "
                  + (revisions.revisions().isEmpty()
                      ? "none"
                      : String.join(", ", revisions.revisions().keySet())));
    }
    if (own.size() > 1) {
      throw new TagRefused(
          "revision "
              + revision
              + " is claimed by "
              + own.size()
              + " webhook configurations ("
              + String.join(", ", own.stream().map(m -> m.getMetadata().getName()).toList())
              + "): two releases were installed with one revision name; uninstall one first");
    }
    return own.get(0);
  }

  /**
   * The revision called default serves the tag default itself while no tag object does (the chart
   * renders its route entries then). Once the tag object exists, those entries come out of its
   * configuration, so one entry fails closed for the namespaces labelled {@code enabled}. Between
   * the two writes both do: the second one called finds the pod injected and is skipped by the
   * injection-incomplete condition (or, if one revision is down, the pod is refused, never created
   * bare). A later {@code helm upgrade} of that release finds the tag and renders none.
   */
  private void handOverFromTheRevisionDefault(InjectorConfigurations read) {
    for (MutatingWebhookConfiguration own : read.ownOf(RevisionNames.DEFAULT)) {
      List<java.util.Map<String, Object>> ops = RouteEntries.removeRoutes(own);
      if (ops.isEmpty()) {
        continue;
      }
      try {
        client
            .admissionRegistration()
            .v1()
            .mutatingWebhookConfigurations()
            .withName(own.getMetadata().getName())
            .patch(
                io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                    io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
                client.getKubernetesSerialization().asJson(ops));
      } catch (KubernetesClientException e) {
        throw new TagRefused(
            "tag default now points where asked, but taking the route entries out of "
                + own.getMetadata().getName()
                + " failed ("
                + ClusterSnapshot.cause(e)
                + "): until they are, both fail closed for its namespaces; run tag set default"
                + " again");
      }
    }
  }

  private void write(
      String tag, MutatingWebhookConfiguration desired, boolean exists, Optional<String> from) {
    var webhooks = client.admissionRegistration().v1().mutatingWebhookConfigurations();
    try {
      if (exists) {
        // a PUT at the resourceVersion read (TagWebhooks.pointing keeps it): 409 if it moved
        webhooks.resource(desired).update();
      } else {
        webhooks.resource(desired).create();
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        throw new TagRefused(
            exists
                ? "someone moved tag "
                    + tag
                    + " meanwhile (it pointed at revision "
                    + from.orElse("?")
                    + " when read); nothing was written: see where it points now with"
                    + " mesh-injector tag list, then run tag set again"
                : "tag "
                    + tag
                    + " was created meanwhile ("
                    + desired.getMetadata().getName()
                    + " exists now); nothing was written: see where it points with"
                    + " mesh-injector tag list, then run tag set again");
      }
      if (exists && e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        throw new TagRefused(
            "someone removed tag " + tag + " meanwhile; nothing was written: run tag set again");
      }
      throw new TagRefused(
          "writing "
              + desired.getMetadata().getName()
              + " failed: "
              + ClusterSnapshot.cause(e)
              + "; nothing was written");
    }
  }
}
