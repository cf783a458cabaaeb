package io.meshinjector.engine.repair;

import java.util.Objects;

/**
 * An injected pod whose redirect step failed, as {@link BrokenRedirect#find} reads it from the
 * pod's status.
 *
 * @param podUid the pod's UID: the delete's precondition and the ledger's key
 * @param container the init container or validator that failed
 * @param exitCode its exit code
 * @param message its termination message or reason, empty when it gave none
 * @param owner the pod's controller, or {@code null} for a bare pod (nothing would recreate it)
 */
public record Breakage(
    String namespace,
    String pod,
    String podUid,
    String node,
    Flavour flavour,
    String container,
    int exitCode,
    String message,
    Owner owner) {

  /** The pod's controlling owner (ownerReferences entry with {@code controller: true}). */
  public record Owner(String kind, String name, String uid) {
    public Owner {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(uid, "uid");
    }

    @Override
    public String toString() {
      return kind + "/" + name;
    }
  }

  public Breakage {
    Objects.requireNonNull(podUid, "podUid");
    Objects.requireNonNull(flavour, "flavour");
    Objects.requireNonNull(container, "container");
    message = message == null ? "" : message.strip();
  }

  /**
   * What makes two failures "the same" for the backoff: the same controller's pods failing in the
   * same container on the same node. A replacement has a new name and UID but the same owner.
   */
  String sameFailureKey() {
    return (owner == null ? "pod:" + podUid : owner.uid()) + "/" + container + "@" + node;
  }

  /** One line for Events and logs: the container, its exit code and its message. */
  public String what() {
    return container
        + " exited "
        + exitCode
        + (message.isEmpty() ? "" : " (" + oneLine(message, 200) + ")");
  }

  private static String oneLine(String s, int max) {
    String line = s.replaceAll("\\s+", " ").strip();
    return line.length() <= max ? line : line.substring(0, max - 1) + "…";
  }
}
