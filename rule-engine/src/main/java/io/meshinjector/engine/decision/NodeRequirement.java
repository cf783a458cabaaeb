package io.meshinjector.engine.decision;

import java.util.List;
import java.util.Objects;

/**
 * One required node-affinity requirement the engine adds, e.g. {@code
 * capability.mesh-injector.io/cni In [ready]}.
 */
public record NodeRequirement(String key, String operator, List<String> values) {
  public NodeRequirement {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operator, "operator");
    values = List.copyOf(values);
  }

  public static NodeRequirement in(String key, List<String> values) {
    return new NodeRequirement(key, "In", values);
  }

  @Override
  public String toString() {
    return key + " " + operator + " " + values;
  }
}
