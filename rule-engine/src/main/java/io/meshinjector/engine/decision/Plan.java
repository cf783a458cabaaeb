package io.meshinjector.engine.decision;

import java.util.Objects;

/**
 * How to inject one pod.
 *
 * @param ipv6 the redirect covers IPv6 too: a candidate node gives pods IPv6 addresses (or none
 *     says, and the configured default does), so the init container is rendered with the mesh's own
 *     IPv6 switch
 * @param nodeConstraint null when the pod may land on any of its candidate nodes as it is
 */
public record Plan(
    PathOption path,
    ProxyPlacement proxy,
    boolean proxyAwait,
    boolean ipv6,
    NodeConstraint nodeConstraint) {
  public Plan {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(proxy, "proxy");
  }

  /**
   * The one-line summary written as {@code mesh-injector.io/decision}, e.g. {@code init/nft
   * native-sidecar await}.
   */
  public String summary() {
    StringBuilder s = new StringBuilder(path.toString()).append(' ').append(proxy.id());
    if (proxyAwait) {
      s.append(" await");
    }
    if (ipv6) {
      s.append(" ipv6");
    }
    if (nodeConstraint != null) {
      s.append(" constrained");
    }
    return s.toString();
  }
}
