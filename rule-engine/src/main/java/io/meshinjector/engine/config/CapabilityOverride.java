package io.meshinjector.engine.config;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import java.util.Map;

/**
 * An operator's verdicts for the nodes whose labels match {@code nodeSelector} (all pairs must
 * match; an empty selector matches every node). Overrides beat every other source.
 */
public record CapabilityOverride(
    Map<String, String> nodeSelector, Map<CapabilityKey, Verdict> set) {
  public CapabilityOverride {
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    set = Map.copyOf(set);
  }

  public boolean matches(Map<String, String> labels) {
    for (Map.Entry<String, String> e : nodeSelector.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** "nodeSelector {a=b}" for traces. */
  public String describe() {
    return nodeSelector.isEmpty() ? "override for every node" : "override for " + nodeSelector;
  }
}
