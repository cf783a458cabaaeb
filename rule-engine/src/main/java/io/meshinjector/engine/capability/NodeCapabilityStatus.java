package io.meshinjector.engine.capability;

import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code status} of a {@code NodeCapability} object (group {@code mesh-injector.io}, version
 * {@code v1alpha1}, cluster-scoped, {@code metadata.name} = node name), as the probe writes it and
 * the registry reads it.
 *
 * @param observedAt when the probe measured; verdicts older than {@code probeTtl} count as unknown
 * @param capabilities the probe's verdict per key; keys it did not measure are absent
 * @param facts what the verdicts rest on, e.g. {@code missingModules: ip_tables,iptable_nat}
 * @param sources how the probe reached each verdict ({@code active} or {@code files}); empty for a
 *     probe older than the active check, which only read files
 */
public record NodeCapabilityStatus(
    Instant observedAt,
    Map<CapabilityKey, Verdict> capabilities,
    Map<String, String> facts,
    Map<CapabilityKey, ProbeSource> sources) {

  public static final String GROUP = "mesh-injector.io";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  public static final String KIND = "NodeCapability";
  public static final String PLURAL = "nodecapabilities";

  public NodeCapabilityStatus {
    Objects.requireNonNull(observedAt, "observedAt");
    EnumMap<CapabilityKey, Verdict> caps = new EnumMap<>(CapabilityKey.class);
    if (capabilities != null) {
      capabilities.forEach(
          (k, v) -> {
            if (!k.accepts(v)) {
              throw new IllegalArgumentException(
                  "invalid verdict '" + v + "' for capability '" + k + "'");
            }
            caps.put(k, v);
          });
    }
    capabilities = Collections.unmodifiableMap(caps);
    facts = facts == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(facts));
    sources =
        sources == null || sources.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new EnumMap<>(sources));
  }

  /** How the probe reached {@code key}'s verdict, if it said. */
  public Optional<ProbeSource> source(CapabilityKey key) {
    return Optional.ofNullable(sources.get(key));
  }

  /** The status as the plain map written under {@code status} of the resource. */
  public Map<String, Object> toMap() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("observedAt", observedAt.toString());
    Map<String, String> caps = new LinkedHashMap<>();
    capabilities.forEach((k, v) -> caps.put(k.id(), v.id()));
    out.put("capabilities", caps);
    out.put("facts", new LinkedHashMap<>(facts));
    if (!sources.isEmpty()) {
      Map<String, String> how = new LinkedHashMap<>();
      sources.forEach((k, v) -> how.put(k.id(), v.id()));
      out.put("sources", how);
    }
    return out;
  }
}
