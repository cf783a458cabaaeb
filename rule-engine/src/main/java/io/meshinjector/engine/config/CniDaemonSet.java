package io.meshinjector.engine.config;

import java.util.Map;

/**
 * Where the mesh CNI DaemonSet's pods are: a pod of it that is Ready on a node makes that node's
 * {@code cni} verdict {@code ready} (live cluster state).
 */
public record CniDaemonSet(String namespace, Map<String, String> podSelector) {
  public CniDaemonSet {
    podSelector = podSelector == null ? Map.of() : Map.copyOf(podSelector);
  }
}
