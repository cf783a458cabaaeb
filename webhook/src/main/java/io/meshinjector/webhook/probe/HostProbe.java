package io.meshinjector.webhook.probe;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.probe.ActiveCheck;
import io.meshinjector.engine.probe.CniMeasurement;
import io.meshinjector.engine.probe.HostIptables;
import io.meshinjector.engine.probe.KernelModules;
import io.meshinjector.engine.probe.NodeMeasurements;
import io.meshinjector.engine.probe.ProbeFacts;
import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.ProbeReport;
import io.meshinjector.engine.probe.ProbeVerdicts;
import io.meshinjector.engine.probe.Selinux;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Measures one node from its file system mounted at a host root: reads the host's files, hands
 * their text to the rule-engine's parsers, and the measurements to its verdict rules ({@link
 * ProbeVerdicts}).
 *
 * <p>Never throws: whatever cannot be read becomes {@code unknown} with the reason, so one broken
 * file on one node never stops the DaemonSet from reporting the rest.
 */
public final class HostProbe {
  public static final Path DEFAULT_HOST_ROOT = Path.of("/host");

  /**
   * The probe's own root, whose {@code /proc} shows the node's kernel: the module list and the
   * kernel release are not namespaced. The chart does not mount the host's {@code /proc/modules},
   * because a kernel without loadable modules has none and a hostPath volume of type {@code File}
   * would then keep the probe pod from starting on exactly the nodes it should describe.
   */
  public static final Path OWN_ROOT = Path.of("/");

  /** The kernel's own config (CONFIG_IKCONFIG_PROC), not namespaced either. */
  static final String KERNEL_CONFIG = "/proc/config.gz";

  private static final int MAX_KERNEL_CONFIG = 4 * 1024 * 1024;

  private final HostRoot host;
  private final HostRoot kernelFallback;
  private final ProbeOptions options;
  private final ActiveIptablesCheck active;

  /**
   * @param active the active check of the redirect backends, or null to read the node's files only
   * @param kernelRoot where to read {@code /proc} files the host root lacks (the probe's own root,
   *     {@link #OWN_ROOT}, in the DaemonSet), or null to read the host root only
   */
  public static HostProbe withKernelFallback(
      Path hostRoot, ProbeOptions options, ActiveIptablesCheck active, Path kernelRoot) {
    return new HostProbe(
        new HostRoot(Objects.requireNonNull(hostRoot, "hostRoot")),
        options,
        active,
        kernelRoot == null ? null : new HostRoot(kernelRoot));
  }

  /** What {@link #withKernelFallback} builds; tests hand it a host root that fails on purpose. */
  HostProbe(
      HostRoot host, ProbeOptions options, ActiveIptablesCheck active, HostRoot kernelFallback) {
    this.host = Objects.requireNonNull(host, "host");
    this.options = Objects.requireNonNull(options, "options");
    this.active = active;
    this.kernelFallback = kernelFallback;
  }

  /** Measures the node now; {@code observedAt} is stamped on the status. */
  public ProbeReport probe(Instant observedAt) {
    return ProbeVerdicts.report(measure(), options, observedAt);
  }

  NodeMeasurements measure() {
    String osRelease = null;
    String osProblem = null;
    // os-release(5): /etc/os-release, falling back to /usr/lib/os-release
    for (String path : List.of("/etc/os-release", "/usr/lib/os-release")) {
      try {
        osRelease = host.read(path);
        break;
      } catch (HostReadException e) {
        osProblem = osProblem == null ? e.getMessage() : osProblem;
      } catch (RuntimeException e) {
        osProblem = ProbeFacts.internal(e);
        break;
      }
    }

    String kernel = null;
    String kernelProblem = null;
    try {
      kernel = readKernelFile("/proc/sys/kernel/osrelease").strip();
      if (kernel.isEmpty()) {
        kernel = null;
        kernelProblem = "/proc/sys/kernel/osrelease is empty";
      }
    } catch (HostReadException e) {
      kernelProblem = e.getMessage();
    } catch (RuntimeException e) {
      kernelProblem = ProbeFacts.internal(e);
    }

    HostIptables iptables = null;
    String iptablesProblem = null;
    try {
      iptables = IptablesReader.read(host);
    } catch (RuntimeException e) {
      iptablesProblem = ProbeFacts.internal(e);
    }

    KernelModules modules = null;
    String modulesProblem = null;
    try {
      modules = modules(kernel, kernelProblem);
    } catch (RuntimeException e) {
      modulesProblem = ProbeFacts.internal(e);
    }

    CniMeasurement cni;
    try {
      cni = CniReader.read(host, options);
    } catch (RuntimeException e) {
      cni = new CniMeasurement.Failed(ProbeFacts.internal(e));
    }

    String selinux;
    try {
      selinux = selinux();
    } catch (RuntimeException e) {
      selinux = ProbeFacts.unknown(ProbeFacts.internal(e));
    }
    Map<CapabilityKey, ActiveCheck.Result> tried = Map.of();
    if (active != null) {
      try {
        tried = active.run();
      } catch (RuntimeException e) {
        ActiveCheck.Result failed = new ActiveCheck.NotRun(ProbeFacts.internal(e));
        Map<CapabilityKey, ActiveCheck.Result> each = new EnumMap<>(CapabilityKey.class);
        for (ActiveCheck.Backend b : ActiveCheck.Backend.values()) {
          each.put(b.key(), failed);
        }
        tried = each;
      }
    }
    return new NodeMeasurements(
        osRelease,
        osProblem,
        kernel,
        kernelProblem,
        modules,
        modulesProblem,
        iptables,
        iptablesProblem,
        cni,
        selinux,
        tried);
  }

  private KernelModules modules(String kernel, String kernelProblem) {
    Set<String> loaded = null;
    String loadedProblem = null;
    try {
      loaded = KernelModules.parseProcModules(readKernelFile("/proc/modules"));
    } catch (HostReadException e) {
      loadedProblem = e.getMessage();
    }
    if (kernel == null) {
      return KernelModules.withoutRelease(loaded, loadedProblem, kernelProblem);
    }
    String dir = "/lib/modules/" + kernel;
    Set<String> builtin = null;
    String builtinProblem = null;
    try {
      builtin = KernelModules.parseModuleList(host.read(dir + "/modules.builtin"));
    } catch (HostReadException e) {
      builtinProblem = e.getMessage();
      // a kernel built without loadable modules has no module tree and no /proc/modules, so
      // without this every iptables verdict stayed unknown on it; its own config, when it carries
      // one, says what is built in
      try {
        builtin = KernelModules.parseKernelConfig(kernelConfig());
        builtinProblem = null;
      } catch (HostReadException config) {
        builtinProblem += "; " + config.getMessage();
      }
    }
    Set<String> tree = null;
    String treeProblem = null;
    try {
      tree = KernelModules.parseModuleList(host.read(dir + "/modules.dep"));
    } catch (HostReadException e) {
      treeProblem = e.getMessage();
    }
    return new KernelModules(loaded, loadedProblem, builtin, builtinProblem, tree, treeProblem);
  }

  /** {@code /proc/config.gz}, unpacked (at most {@value #MAX_KERNEL_CONFIG} bytes). */
  private String kernelConfig() throws HostReadException {
    byte[] packed;
    try {
      packed = host.readBytes(KERNEL_CONFIG);
    } catch (HostReadException e) {
      if (kernelFallback == null || !e.missing()) {
        throw e;
      }
      packed = kernelFallback.readBytes(KERNEL_CONFIG);
    }
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(packed))) {
      byte[] text = in.readNBytes(MAX_KERNEL_CONFIG + 1);
      if (text.length > MAX_KERNEL_CONFIG) {
        throw new HostReadException(
            KERNEL_CONFIG + " unpacks to more than " + MAX_KERNEL_CONFIG + " bytes", false);
      }
      return new String(text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new HostReadException(KERNEL_CONFIG + " is not gzip: " + e.getMessage(), false);
    }
  }

  /**
   * A {@code /proc} file from the host root, else from the kernel fallback. A file missing from
   * both keeps the host root's message: with no fallback, or where the kernel has no such file (no
   * loadable modules), that is the true reason.
   */
  private String readKernelFile(String path) throws HostReadException {
    try {
      return host.read(path);
    } catch (HostReadException e) {
      if (kernelFallback == null || !e.missing()) {
        throw e;
      }
      try {
        return kernelFallback.read(path);
      } catch (HostReadException fallback) {
        throw fallback.missing() ? e : fallback;
      }
    }
  }

  private String selinux() {
    try {
      return Selinux.fromEnforce(host.read(Selinux.ENFORCE));
    } catch (HostReadException e) {
      // selinuxfs is only mounted into the probe on request; the config says what boots
    }
    try {
      return Selinux.fromConfig(host.read(Selinux.CONFIG));
    } catch (HostReadException e) {
      return e.missing() ? Selinux.NOT_PRESENT : ProbeFacts.unknown(e.getMessage());
    }
  }
}
