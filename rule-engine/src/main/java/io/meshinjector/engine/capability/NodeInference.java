package io.meshinjector.engine.capability;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Inference from the Node object, the lowest source that knows anything: {@code
 * status.nodeInfo.osImage} for the iptables backends, {@code kubeletVersion} for native sidecars,
 * {@code status.nodeInfo.operatingSystem} (or the kubelet's {@code kubernetes.io/os} label) for the
 * node's OS and {@code spec.podCIDRs} for whether its pods have IPv6. Only facts that hold for a
 * whole OS family are inferred; any other family gives nothing, never a guess.
 */
public final class NodeInference {
  /** Kubelets from this minor version run init containers with restartPolicy Always. */
  public static final int NATIVE_SIDECAR_MINOR = 29;

  private static final Pattern KUBELET = Pattern.compile("^v?(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*$");
  private static final Pattern FIRST_NUMBER = Pattern.compile("(\\d+)(?:\\.(\\d+))?");

  /** OS families the engine recognises in {@code osImage}. */
  public enum OsFamily {
    RHEL,
    RHCOS,
    CENTOS,
    CENTOS_STREAM,
    ROCKY,
    ALMA,
    ORACLE,
    UBUNTU,
    DEBIAN,
    AMAZON_LINUX,
    BOTTLEROCKET,
    FLATCAR,
    COS,
    UNKNOWN
  }

  /** A parsed {@code osImage}: family and major version (-1 when it has none). */
  public record OsImage(OsFamily family, int major, String raw) {
    /**
     * The Red Hat family from 8 on ships only iptables-nft; its kernels lack the legacy nat table.
     */
    boolean nftOnly() {
      return switch (family) {
        case RHCOS -> true;
        case RHEL, CENTOS, CENTOS_STREAM, ROCKY, ALMA, ORACLE -> major >= 8;
        default -> false;
      };
    }

    /** CentOS/RHEL 7's iptables 1.4 is legacy only. */
    boolean legacyOnly() {
      return switch (family) {
        case RHEL, CENTOS, ORACLE -> major == 7;
        default -> false;
      };
    }
  }

  private NodeInference() {}

  public static OsImage parseOsImage(String osImage) {
    if (osImage == null || osImage.isBlank()) {
      return new OsImage(OsFamily.UNKNOWN, -1, "");
    }
    String s = osImage.toLowerCase(Locale.ROOT);
    OsFamily family;
    String rest;
    if (s.contains("coreos") && s.contains("red hat")) {
      family = OsFamily.RHCOS;
      rest = "";
    } else if (s.startsWith("red hat enterprise linux")) {
      family = OsFamily.RHEL;
      rest = s.substring("red hat enterprise linux".length());
    } else if (s.startsWith("centos stream")) {
      family = OsFamily.CENTOS_STREAM;
      rest = s.substring("centos stream".length());
    } else if (s.startsWith("centos")) {
      family = OsFamily.CENTOS;
      rest = s.substring("centos".length());
    } else if (s.startsWith("rocky linux")) {
      family = OsFamily.ROCKY;
      rest = s.substring("rocky linux".length());
    } else if (s.startsWith("almalinux")) {
      family = OsFamily.ALMA;
      rest = s.substring("almalinux".length());
    } else if (s.startsWith("oracle linux")) {
      family = OsFamily.ORACLE;
      rest = s.substring("oracle linux".length());
    } else if (s.startsWith("ubuntu")) {
      family = OsFamily.UBUNTU;
      rest = s.substring("ubuntu".length());
    } else if (s.startsWith("debian")) {
      family = OsFamily.DEBIAN;
      rest = s.substring("debian".length());
    } else if (s.startsWith("amazon linux")) {
      family = OsFamily.AMAZON_LINUX;
      rest = s.substring("amazon linux".length());
    } else if (s.startsWith("bottlerocket")) {
      family = OsFamily.BOTTLEROCKET;
      rest = s.substring("bottlerocket".length());
    } else if (s.startsWith("flatcar")) {
      family = OsFamily.FLATCAR;
      rest = s.substring("flatcar".length());
    } else if (s.startsWith("container-optimized os")) {
      family = OsFamily.COS;
      rest = "";
    } else {
      return new OsImage(OsFamily.UNKNOWN, -1, osImage);
    }
    Matcher m = FIRST_NUMBER.matcher(rest);
    int major = m.find() ? Integer.parseInt(m.group(1)) : -1;
    return new OsImage(family, major, osImage);
  }

  /** The kubelet's minor version, e.g. 31 for {@code v1.31.0-eks-a737599}, if it is 1.x. */
  public static Optional<Integer> kubeletMinor(String kubeletVersion) {
    if (kubeletVersion == null) {
      return Optional.empty();
    }
    Matcher m = KUBELET.matcher(kubeletVersion.trim());
    if (!m.matches() || !"1".equals(m.group(1))) {
      return Optional.empty();
    }
    return Optional.of(Integer.parseInt(m.group(2)));
  }

  /** The label every kubelet sets to its node's OS; the Node's nodeInfo says the same. */
  public static final String OS_LABEL = "kubernetes.io/os";

  /**
   * The verdicts inference can give for a node; keys it cannot judge are absent.
   *
   * @param operatingSystem {@code status.nodeInfo.operatingSystem}, else the {@link #OS_LABEL}
   *     label, or null
   */
  public static Map<CapabilityKey, SourcedVerdict> infer(
      String osImage, String kubeletVersion, String operatingSystem, PodCidrs podCidrs) {
    Map<CapabilityKey, SourcedVerdict> out = new EnumMap<>(CapabilityKey.class);
    if ("linux".equals(operatingSystem) || "windows".equals(operatingSystem)) {
      out.put(
          CapabilityKey.OS,
          inferred(
              "linux".equals(operatingSystem) ? Verdict.LINUX : Verdict.WINDOWS,
              "operatingSystem '" + operatingSystem + "'"));
    }
    switch (podCidrs) {
      case WITH_IPV6 ->
          out.put(
              CapabilityKey.IPV6_PODS,
              inferred(Verdict.PRESENT, "spec.podCIDRs has an IPv6 range"));
      case IPV4_ONLY ->
          out.put(CapabilityKey.IPV6_PODS, inferred(Verdict.ABSENT, "spec.podCIDRs are IPv4 only"));
      case UNSET -> {
        // a network plugin that assigns addresses itself leaves podCIDRs empty: unknown
      }
    }
    OsImage os = parseOsImage(osImage);
    String osDetail = "osImage '" + os.raw() + "'";
    if (os.nftOnly()) {
      out.put(CapabilityKey.IPTABLES_LEGACY, inferred(Verdict.UNAVAILABLE, osDetail));
      out.put(CapabilityKey.IPTABLES_NFT, inferred(Verdict.AVAILABLE, osDetail));
    } else if (os.legacyOnly()) {
      out.put(CapabilityKey.IPTABLES_LEGACY, inferred(Verdict.AVAILABLE, osDetail));
      out.put(CapabilityKey.IPTABLES_NFT, inferred(Verdict.UNAVAILABLE, osDetail));
    }
    kubeletMinor(kubeletVersion)
        .ifPresent(
            minor ->
                out.put(
                    CapabilityKey.NATIVE_SIDECAR,
                    inferred(
                        minor >= NATIVE_SIDECAR_MINOR ? Verdict.SUPPORTED : Verdict.UNSUPPORTED,
                        "kubelet " + kubeletVersion)));
    return out;
  }

  private static SourcedVerdict inferred(Verdict v, String detail) {
    return new SourcedVerdict(v, Source.INFERENCE, detail);
  }
}
