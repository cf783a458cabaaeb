package io.meshinjector.engine.revisions;

import io.meshinjector.engine.decision.Annotations;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The names of revisions and tags, the keys that carry them, and the one value each name takes in a
 * namespace's routing label. Revisions and tags share one name space: a namespace or pod names
 * either, and the API server routes on that name alone.
 *
 * <p>{@value #DEFAULT} names the default tag, which every opted-in namespace and pod without a
 * {@value #REV} follows. Its routing label value is {@value #DEFAULT_ROUTE}, the value the label
 * had before revisions existed, so a single-release install labels exactly as it always did.
 */
public final class RevisionNames {
  /** The default tag, and the revision of a release installed without one. */
  public static final String DEFAULT = "default";

  /** The routing label's value for {@value #DEFAULT}. */
  public static final String DEFAULT_ROUTE = "enabled";

  /** On a namespace or pod: the revision or tag that injects it. It opts nothing in by itself. */
  public static final String REV = Annotations.PREFIX + "rev";

  /** Written on every injected pod: the revision that injected it. */
  public static final String REVISION = Annotations.PREFIX + "revision";

  /**
   * The namespace's routing label: the name of its revision or tag, mirrored by one writer from the
   * namespace's opt-in and {@value #REV}; what the webhook configurations select on.
   */
  public static final String ROUTE_LABEL = Annotations.PREFIX + "injection";

  /** On a tag's webhook configuration: the tag's name. */
  public static final String TAG_LABEL = Annotations.PREFIX + "tag";

  /**
   * On every revision's and tag's webhook configuration: the revision it sends pods to. How the
   * webhooks, {@code check} and {@code tag} find the injectors of a cluster.
   */
  public static final String REVISION_LABEL = Annotations.PREFIX + "revision";

  /** A tag's webhook configuration is called this plus the tag's name. */
  public static final String TAG_OBJECT_PREFIX = "mesh-injector-tag-";

  /** The longest name: a tag's object name and the label value must stay within 63 characters. */
  public static final int MAX_LENGTH = 40;

  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  /** Values of the routing label that mean something else, so never a revision's or tag's name. */
  private static final Set<String> RESERVED = Set.of(DEFAULT_ROUTE, "disabled");

  private RevisionNames() {}

  /** What is wrong with {@code name} as a revision or tag name, or empty when it is fine. */
  public static Optional<String> problem(String name) {
    if (name == null || name.isEmpty()) {
      return Optional.of("a revision or tag name must not be empty");
    }
    if (name.length() > MAX_LENGTH || !NAME.matcher(name).matches()) {
      return Optional.of(
          "'"
              + name
              + "' is not a revision or tag name: lower-case letters, digits and '-', starting and"
              + " ending with a letter or digit, at most "
              + MAX_LENGTH
              + " characters");
    }
    if (RESERVED.contains(name)) {
      return Optional.of(
          "'" + name + "' is reserved (it is a value of the label " + ROUTE_LABEL + ")");
    }
    return Optional.empty();
  }

  /** The routing label's value for a namespace routed to {@code name}. */
  public static String routeValue(String name) {
    return DEFAULT.equals(name) ? DEFAULT_ROUTE : name;
  }

  /** The revision or tag a routing label value names. */
  public static String nameOfRoute(String value) {
    return DEFAULT_ROUTE.equals(value) ? DEFAULT : value;
  }

  /** The name of tag {@code tag}'s webhook configuration. */
  public static String tagObjectName(String tag) {
    return TAG_OBJECT_PREFIX + tag;
  }
}
