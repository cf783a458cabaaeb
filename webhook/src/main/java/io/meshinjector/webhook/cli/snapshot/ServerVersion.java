package io.meshinjector.webhook.cli.snapshot;

import io.fabric8.kubernetes.client.VersionInfo;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.config.CapabilityOverride;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.config.MeshConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API server's own capabilities. Native sidecars need the API server to accept init containers
 * with {@code restartPolicy: Always} (1.29 on by default): an older one would drop the field, and
 * the proxy would become an init container that never ends, whatever the nodes' kubelets say.
 */
public final class ServerVersion {
  private static final Pattern NUMBER = Pattern.compile("^(\\d+)");
  static final int NATIVE_SIDECAR_MINOR = 29;

  private ServerVersion() {}

  /** major and minor, e.g. {@code [1, 28]}; GKE's {@code 28+} reads as 28. */
  public static Optional<int[]> parse(VersionInfo version) {
    if (version == null) {
      return Optional.empty();
    }
    Optional<Integer> major = number(version.getMajor());
    Optional<Integer> minor = number(version.getMinor());
    if (major.isEmpty() || minor.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new int[] {major.get(), minor.get()});
  }

  public static boolean supportsNativeSidecars(int[] version) {
    return version[0] > 1 || (version[0] == 1 && version[1] >= NATIVE_SIDECAR_MINOR);
  }

  /**
   * The config with native sidecars off on every node when the server is older than 1.29: an
   * override for every node, put before the operator's own so that none of them can turn it on.
   */
  public static MeshConfig apply(MeshConfig config, int[] version) {
    if (supportsNativeSidecars(version)) {
      return config;
    }
    EngineConfig engine = config.engine();
    CapabilitiesConfig caps = engine.capabilities();
    List<CapabilityOverride> overrides = new ArrayList<>();
    overrides.add(
        new CapabilityOverride(
            Map.of(), Map.of(CapabilityKey.NATIVE_SIDECAR, Verdict.UNSUPPORTED)));
    overrides.addAll(caps.overrides());
    CapabilitiesConfig limited =
        new CapabilitiesConfig(
            caps.probeTtl(),
            overrides,
            caps.assumeUnknown(),
            caps.cniDaemonSet(),
            caps.plainBackend());
    return new MeshConfig(
        config.tree(),
        new EngineConfig(
            engine.mesh(),
            engine.injection(),
            engine.policy(),
            limited,
            engine.maxCandidateNodes(),
            engine.pathNotes()));
  }

  private static Optional<Integer> number(String text) {
    if (text == null) {
      return Optional.empty();
    }
    Matcher m = NUMBER.matcher(text.trim());
    return m.find() ? Optional.of(Integer.parseInt(m.group(1))) : Optional.empty();
  }
}
