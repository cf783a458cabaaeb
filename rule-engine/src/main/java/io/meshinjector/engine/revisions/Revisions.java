package io.meshinjector.engine.revisions;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The injectors a cluster has: the revisions its releases serve and where its tags point, as read
 * from their webhook configurations (labelled {@value RevisionNames#REVISION_LABEL}).
 *
 * @param known false when the cluster's injectors were not read (a manifest checked without a
 *     cluster, or a release without the right to list webhook configurations): then every name
 *     counts as the asker's own revision
 * @param revisions by revision name, the release that serves it
 * @param tags by tag name, the revision it points at
 */
public record Revisions(boolean known, Map<String, Release> revisions, Map<String, String> tags) {

  /**
   * The release that serves a revision.
   *
   * @param namespace the release's namespace
   * @param name the release's name
   * @param webhookConfiguration the revision's own webhook configuration
   */
  public record Release(String namespace, String name, String webhookConfiguration) {
    /** {@code namespace/name}, as {@code helm -n namespace} names it. */
    public String describe() {
      return namespace + "/" + name;
    }
  }

  private static final Revisions UNKNOWN = new Revisions(false, Map.of(), Map.of());

  public Revisions {
    // sorted, so that messages list them in a stable order
    revisions =
        Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(revisions, "revisions")));
    tags = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(tags, "tags")));
  }

  /** The cluster's injectors were not read. */
  public static Revisions unknown() {
    return UNKNOWN;
  }

  /**
   * The revision {@code name} sends pods to: the tag's target when a tag has that name, the
   * revision of that name otherwise; {@link RevisionNames#DEFAULT} with no tag of that name falls
   * back to the revision called {@code default}, a release installed without a revision.
   */
  public Optional<String> revisionOf(String name) {
    String target = tags.get(name);
    if (target != null) {
      return revisions.containsKey(target) ? Optional.of(target) : Optional.empty();
    }
    return revisions.containsKey(name) ? Optional.of(name) : Optional.empty();
  }

  /** Whether {@code name} is a tag or a served revision. */
  public boolean names(String name) {
    return tags.containsKey(name) || revisions.containsKey(name);
  }

  /**
   * Whether {@code name} has webhook entries that fail closed: every tag has, and every served
   * revision for its own name; the revision {@code default} serves the tag default itself while the
   * cluster has no tag object of that name.
   */
  public boolean hasOwnEntries(String name) {
    return tags.containsKey(name) || revisions.containsKey(name);
  }
}
