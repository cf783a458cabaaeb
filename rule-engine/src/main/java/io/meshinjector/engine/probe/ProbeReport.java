package io.meshinjector.engine.probe;

import io.meshinjector.engine.capability.NodeCapabilityStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one probe run found on a node.
 *
 * @param status the verdicts and facts, as written to the node's {@code NodeCapability}
 * @param findings one human-readable line per verdict (with its reason) and notable fact, for logs
 */
public record ProbeReport(NodeCapabilityStatus status, List<String> findings) {
  public ProbeReport {
    Objects.requireNonNull(status, "status");
    findings = List.copyOf(findings);
  }

  /**
   * The whole {@code NodeCapability} object for {@code nodeName} as plain maps, ready to print or
   * to apply: the object is cluster-scoped and named after its node.
   */
  public Map<String, Object> toResource(String nodeName) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", nodeName);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("apiVersion", NodeCapabilityStatus.API_VERSION);
    out.put("kind", NodeCapabilityStatus.KIND);
    out.put("metadata", metadata);
    out.put("status", status.toMap());
    return out;
  }
}
