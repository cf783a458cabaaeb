package io.meshinjector.engine.revisions;

/**
 * Which revision injects one opted-in pod, and why: the name it asked for (its own {@value
 * RevisionNames#REV}, its namespace's, or the default tag) resolved through the cluster's tags.
 */
public sealed interface Route {
  /** The revision or tag asked for. */
  String asked();

  /** Where the name came from, for messages: "the pod's mesh-injector.io/rev", ... */
  String from();

  /** One line for {@code explain} and the log. */
  String describe();

  /**
   * A name that resolves.
   *
   * @param revision the revision that injects
   * @param tag true when {@code asked} is a tag (false when it names the revision itself)
   * @param release the release that serves {@code revision}; null when the cluster was not read
   */
  record Resolved(
      String asked, String from, String revision, boolean tag, Revisions.Release release)
      implements Route {
    @Override
    public String describe() {
      String via = tag ? "tag " + asked + " -> revision " + revision : "revision " + revision;
      return via
          + " ("
          + from
          + ")"
          + (release == null ? "" : ", served by release " + release.describe());
    }
  }

  /**
   * A name no release serves: a pod that asks for it is refused, never created without its proxy.
   *
   * @param why what is missing, for the refusal
   */
  record Unknown(String asked, String from, String why) implements Route {
    @Override
    public String describe() {
      return why;
    }
  }
}
