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

  /** A status without sources, as a probe before the active check wrote it. */
  public NodeCapabilityStatus(
      Instant observedAt, Map<CapabilityKey, Verdict> capabilities, Map<String, String> facts) {
    this(observedAt, capabilities, facts, Map.of());
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

  /**
   * Reads the {@code status} map of a NodeCapability resource.
   *
   * @throws IllegalArgumentException naming the field that is missing or wrong
   */
  public static NodeCapabilityStatus fromMap(Map<?, ?> status) {
    if (status == null) {
      throw new IllegalArgumentException("NodeCapability has no status");
    }
    Object observed = status.get("observedAt");
    if (observed == null) {
      throw new IllegalArgumentException("NodeCapability status.observedAt is missing");
    }
    Instant observedAt;
    try {
      observedAt = Instant.parse(observed.toString());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "NodeCapability status.observedAt '" + observed + "' is not an RFC 3339 time", e);
    }
    Map<CapabilityKey, Verdict> caps = new EnumMap<>(CapabilityKey.class);
    if (status.get("capabilities") instanceof Map<?, ?> raw) {
      for (Map.Entry<?, ?> e : raw.entrySet()) {
        // keys this version does not know are ignored, so a newer probe does not break an older
        // webhook; a known key with a bad verdict is an error.
        CapabilityKey.fromId(String.valueOf(e.getKey()))
            .ifPresent(k -> caps.put(k, k.parseVerdict(String.valueOf(e.getValue()))));
      }
    } else if (status.get("capabilities") != null) {
      throw new IllegalArgumentException("NodeCapability status.capabilities is not a map");
    }
    Map<String, String> facts = new LinkedHashMap<>();
    if (status.get("facts") instanceof Map<?, ?> raw) {
      raw.forEach((k, v) -> facts.put(String.valueOf(k), String.valueOf(v)));
    }
    Map<CapabilityKey, ProbeSource> sources = new EnumMap<>(CapabilityKey.class);
    if (status.get("sources") instanceof Map<?, ?> raw) {
      for (Map.Entry<?, ?> e : raw.entrySet()) {
        var key = CapabilityKey.fromId(String.valueOf(e.getKey()));
        if (key.isEmpty()) {
          continue;
        }
        String id = String.valueOf(e.getValue());
        sources.put(
            key.get(),
            ProbeSource.fromId(id)
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "NodeCapability status.sources."
                                + key.get().id()
                                + " '"
                                + id
                                + "' is not one of [active, files]")));
      }
    } else if (status.get("sources") != null) {
      throw new IllegalArgumentException("NodeCapability status.sources is not a map");
    }
    return new NodeCapabilityStatus(observedAt, caps, facts, sources);
  }
}
