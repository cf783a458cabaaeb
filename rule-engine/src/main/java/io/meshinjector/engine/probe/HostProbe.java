package io.meshinjector.engine.probe;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.Verdict;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Measures one node from its file system mounted at a host root, and turns the measurements into
 * {@code iptables-legacy}, {@code iptables-nft} and {@code cni} verdicts, each with the facts and
 * the reason behind it. {@code native-sidecar} is left out: it is a kubelet property the webhook
 * reads from the Node object.
 *
 * <p>Never throws: whatever cannot be read becomes {@code unknown} with the reason, so one broken
 * file on one node never stops the DaemonSet from reporting the rest.
 */
public final class HostProbe {
  public static final Path DEFAULT_HOST_ROOT = Path.of("/host");

  /** Fact keys; {@code reason.<capability>} holds why each verdict is what it is. */
  public static final String OS = "os";

  public static final String OS_NAME = "osName";
  public static final String KERNEL = "kernel";
  public static final String LOADED_MODULES = "loadedModules";
  public static final String BUILTIN_MODULES = "builtinModules";
  public static final String INSTALLED_MODULES = "installedModules";
  public static final String MISSING_MODULES = "missingModules";
  public static final String HOST_IPTABLES = "hostIptables";
  public static final String HOST_IPTABLES_LINK = "hostIptablesLink";
  public static final String HOST_BINARIES = "hostBinaries";
  public static final String CONTAINER_RUNTIME = "containerRuntime";
  public static final String CNI_CONF_DIR = "cniConfDir";
  public static final String CNI_CONF = "cniConf";
  public static final String CNI_IPTABLES_MODE = "cniIptablesMode";
  public static final String CNI_BIN_DIR = "cniBinDir";
  public static final String CNI_PLUGIN_BINARY = "cniPluginBinary";
  public static final String SELINUX = "selinux";
  public static final String REASON_PREFIX = "reason.";

  private static final String LINKERD_CNI = "linkerd-cni";

  /** Where plugins end up when an installer and the runtime disagree (seed 003). */
  private static final List<String> KNOWN_BIN_DIRS =
      List.of("/opt/cni/bin", "/etc/cni/bin", "/usr/libexec/cni", "/usr/lib/cni");

  private final HostRoot host;
  private final ProbeOptions options;

  public HostProbe(Path hostRoot) {
    this(hostRoot, ProbeOptions.defaults());
  }

  public HostProbe(Path hostRoot, ProbeOptions options) {
    this(new HostRoot(Objects.requireNonNull(hostRoot, "hostRoot")), options);
  }

  HostProbe(HostRoot host, ProbeOptions options) {
    this.host = Objects.requireNonNull(host, "host");
    this.options = Objects.requireNonNull(options, "options");
  }

  public static String reasonKey(CapabilityKey key) {
    return REASON_PREFIX + key.id();
  }

  /** Measures the node now; {@code observedAt} is stamped on the status. */
  public ProbeReport probe(Instant observedAt) {
    Map<CapabilityKey, Verdict> caps = new EnumMap<>(CapabilityKey.class);
    Map<String, String> facts = new LinkedHashMap<>();
    List<String> findings = new ArrayList<>();

    String kernel = null;
    String kernelProblem = null;
    try {
      readOs(facts);
      try {
        kernel = host.read("/proc/sys/kernel/osrelease").strip();
        if (kernel.isEmpty()) {
          kernel = null;
          kernelProblem = "/proc/sys/kernel/osrelease is empty";
        }
      } catch (HostReadException e) {
        kernelProblem = e.getMessage();
      }
      facts.put(KERNEL, kernel != null ? kernel : unknown(kernelProblem));
    } catch (RuntimeException e) {
      facts.put(KERNEL, unknown(internal(e)));
    }

    HostIptables iptables = null;
    try {
      iptables = HostIptables.read(host);
      facts.put(HOST_IPTABLES, iptables.backend());
      facts.put(HOST_IPTABLES_LINK, iptables.link());
      facts.put(
          HOST_BINARIES,
          iptables.present() != null
              ? String.join(",", iptables.present())
              : unknown(iptables.problem()));
    } catch (RuntimeException e) {
      facts.put(HOST_IPTABLES, unknown(internal(e)));
    }

    Outcome legacy;
    Outcome nft;
    try {
      KernelModules modules = KernelModules.read(host, kernel, kernelProblem);
      moduleFacts(modules, facts);
      legacy = legacy(modules, kernel);
      nft = nft(modules, kernel);
    } catch (RuntimeException e) {
      legacy = Outcome.unknown(internal(e));
      nft = legacy;
    }
    record(CapabilityKey.IPTABLES_LEGACY, legacy, caps, facts, findings);
    record(CapabilityKey.IPTABLES_NFT, nft, caps, facts, findings);

    Outcome cni;
    try {
      cni = cni(iptables, facts);
    } catch (RuntimeException e) {
      cni = Outcome.unknown(internal(e));
    }
    record(CapabilityKey.CNI, cni, caps, facts, findings);

    try {
      facts.put(SELINUX, selinux());
    } catch (RuntimeException e) {
      facts.put(SELINUX, unknown(internal(e)));
    }
    if (facts.get(SELINUX).startsWith("enforcing")) {
      findings.add(
          "selinux is enforcing: a file the probe could not read may be denied by policy, not"
              + " missing (see probe.securityContext in the chart)");
    }
    findings.add(
        0,
        "node: "
            + facts.getOrDefault(OS, "?")
            + ", kernel "
            + facts.getOrDefault(KERNEL, "?")
            + ", host iptables "
            + facts.getOrDefault(HOST_IPTABLES, "?")
            + " ("
            + facts.getOrDefault(HOST_IPTABLES_LINK, "?")
            + ")");
    return new ProbeReport(new NodeCapabilityStatus(observedAt, caps, facts), findings);
  }

  private record Outcome(Verdict verdict, String reason) {
    static Outcome unknown(String reason) {
      return new Outcome(Verdict.UNKNOWN, reason);
    }
  }

  private static void record(
      CapabilityKey key,
      Outcome outcome,
      Map<CapabilityKey, Verdict> caps,
      Map<String, String> facts,
      List<String> findings) {
    caps.put(key, outcome.verdict());
    facts.put(reasonKey(key), outcome.reason());
    findings.add(key.id() + ": " + outcome.verdict().id() + " - " + outcome.reason());
  }

  private void readOs(Map<String, String> facts) {
    // os-release(5): /etc/os-release, falling back to /usr/lib/os-release
    String text = null;
    String problem = null;
    for (String path : List.of("/etc/os-release", "/usr/lib/os-release")) {
      try {
        text = host.read(path);
        break;
      } catch (HostReadException e) {
        if (problem == null) {
          problem = e.getMessage();
        }
      }
    }
    if (text == null) {
      facts.put(OS, unknown(problem));
      return;
    }
    Map<String, String> fields = OsRelease.parse(text);
    facts.put(OS, OsRelease.summary(fields));
    if (fields.containsKey("PRETTY_NAME")) {
      facts.put(OS_NAME, fields.get("PRETTY_NAME"));
    }
  }

  private static void moduleFacts(KernelModules m, Map<String, String> facts) {
    facts.put(
        LOADED_MODULES, m.loaded() != null ? relevant(m, m::isLoaded) : unknown(m.loadedProblem()));
    facts.put(
        BUILTIN_MODULES,
        m.builtin() != null ? relevant(m, m::isBuiltin) : unknown(m.builtinProblem()));
    facts.put(
        INSTALLED_MODULES,
        m.tree() != null
            ? relevant(m, n -> m.inTree(n) && !m.isLoaded(n) && !m.isBuiltin(n))
            : unknown(m.treeProblem()));
    List<String> missing = new ArrayList<>();
    for (String mod : List.of(KernelModules.IP_TABLES, KernelModules.IPTABLE_NAT)) {
      if (m.loaded() != null && m.builtin() != null && !m.isLoaded(mod) && !m.isBuiltin(mod)) {
        missing.add(mod);
      }
    }
    String nf = KernelModules.NF_TABLES;
    if (m.loaded() != null
        && m.builtin() != null
        && m.tree() != null
        && !m.isLoaded(nf)
        && !m.isBuiltin(nf)
        && !m.inTree(nf)) {
      missing.add(nf);
    }
    facts.put(MISSING_MODULES, String.join(",", missing));
  }

  private static String relevant(KernelModules m, java.util.function.Predicate<String> test) {
    return KernelModules.RELEVANT.stream().filter(test).collect(Collectors.joining(","));
  }

  /**
   * The init container's iptables-legacy needs ip_tables and iptable_nat in the running kernel; it
   * cannot load them itself, which is seed 000's "iptables who? (do you need to insmod?)".
   */
  private static Outcome legacy(KernelModules m, String kernel) {
    if (m.loaded() == null) {
      return Outcome.unknown("cannot tell which modules are loaded: " + m.loadedProblem());
    }
    List<String> missing = new ArrayList<>();
    List<String> undetermined = new ArrayList<>();
    for (String mod : List.of(KernelModules.IP_TABLES, KernelModules.IPTABLE_NAT)) {
      if (m.isLoaded(mod) || m.isBuiltin(mod)) {
        continue;
      }
      (m.builtin() == null ? undetermined : missing).add(mod);
    }
    if (!missing.isEmpty()) {
      String names = String.join(", ", missing);
      StringBuilder why =
          new StringBuilder(names)
              .append(missing.size() == 1 ? " is" : " are")
              .append(" neither loaded nor built into kernel ")
              .append(kernel)
              .append(
                  "; a pod's init container cannot load kernel modules (\"iptables who? (do you"
                      + " need to insmod?)\")");
      if (m.tree() != null && missing.stream().allMatch(m::inTree)) {
        why.append("; they are in the module tree, so `modprobe ")
            .append(String.join(" ", missing))
            .append("` on the node (or the chart's nodePrep with mode legacy) makes it available");
      } else if (m.tree() != null) {
        List<String> notInTree = missing.stream().filter(x -> !m.inTree(x)).toList();
        why.append("; ")
            .append(String.join(", ", notInTree))
            .append(notInTree.size() == 1 ? " is" : " are")
            .append(" not in the module tree either: use iptables-nft or the CNI path");
      }
      return new Outcome(Verdict.UNAVAILABLE, why.toString());
    }
    if (!undetermined.isEmpty()) {
      return Outcome.unknown(
          String.join(", ", undetermined)
              + " not loaded, and whether it is built in cannot be read: "
              + m.builtinProblem());
    }
    return new Outcome(
        Verdict.AVAILABLE,
        "ip_tables and iptable_nat are "
            + (m.isLoaded(KernelModules.IP_TABLES) && m.isLoaded(KernelModules.IPTABLE_NAT)
                ? "loaded"
                : "loaded or built in"));
  }

  /** nf_tables is autoloaded by the kernel on first use, so being in the module tree suffices. */
  private static Outcome nft(KernelModules m, String kernel) {
    String nf = KernelModules.NF_TABLES;
    if (m.isLoaded(nf)) {
      return new Outcome(Verdict.AVAILABLE, "nf_tables is loaded");
    }
    if (m.isBuiltin(nf)) {
      return new Outcome(Verdict.AVAILABLE, "nf_tables is built into kernel " + kernel);
    }
    if (m.inTree(nf)) {
      return new Outcome(
          Verdict.AVAILABLE,
          "nf_tables is in the module tree of kernel "
              + kernel
              + " and is autoloaded on first use");
    }
    List<String> problems = new ArrayList<>();
    if (m.loaded() == null) {
      problems.add(m.loadedProblem());
    }
    if (m.builtin() == null) {
      problems.add(m.builtinProblem());
    }
    if (m.tree() == null) {
      problems.add(m.treeProblem());
    }
    if (!problems.isEmpty()) {
      return Outcome.unknown(
          "nf_tables not found where readable; cannot read: "
              + problems.stream().distinct().collect(Collectors.joining("; ")));
    }
    return new Outcome(
        Verdict.UNAVAILABLE,
        "nf_tables is neither loaded, built in, nor in the module tree of kernel " + kernel);
  }

  private Outcome cni(HostIptables iptables, Map<String, String> facts) {
    String plugin = options.cniPluginType();
    RuntimeCni runtime;
    try {
      runtime = RuntimeCni.read(host, options);
    } catch (HostReadException e) {
      facts.put(CONTAINER_RUNTIME, unknown(e.getMessage()));
      return Outcome.unknown("cannot read the container runtime's CNI settings: " + e.getMessage());
    }
    facts.put(CONTAINER_RUNTIME, runtime.runtime() + " (" + runtime.source() + ")");
    facts.put(CNI_CONF_DIR, runtime.confDir());
    facts.put(CNI_BIN_DIR, String.join(",", runtime.binDirs()));

    CniChain chain;
    try {
      chain = CniChain.read(host, runtime.confDir(), plugin);
    } catch (HostReadException e) {
      facts.put(CNI_CONF, unknown(e.getMessage()));
      String hint =
          e.missing() && !runtime.confDir().equals(options.defaultCniConfDir())
              ? " ("
                  + runtime.runtime()
                  + " reads it instead of "
                  + options.defaultCniConfDir()
                  + "; "
                  + mountHint(runtime.confDir())
                  + ")"
              : "";
      return Outcome.unknown("cannot read the CNI config: " + e.getMessage() + hint);
    }
    if (chain.active() == null) {
      facts.put(CNI_CONF, "none");
      return new Outcome(
          Verdict.ABSENT,
          "no CNI network config in "
              + runtime.confDir()
              + ": the node's network plugin is not installed yet");
    }
    facts.put(CNI_CONF, runtime.confDir() + "/" + chain.active());
    if (chain.plugin() == null) {
      if (chain.chainedElsewhere() != null) {
        return new Outcome(
            Verdict.ABSENT,
            plugin
                + " is chained in "
                + chain.chainedElsewhere()
                + " but "
                + runtime.runtime()
                + " only uses the first config, "
                + chain.active()
                + ": chain it there or remove the stale file");
      }
      return new Outcome(
          Verdict.ABSENT,
          plugin
              + " is not chained in "
              + chain.active()
              + ": install the "
              + plugin
              + " DaemonSet, or wait until it is ready on this node");
    }

    Outcome binary = pluginBinary(runtime, plugin, facts);
    if (binary != null) {
      return binary;
    }
    return iptablesMode(chain, iptables, plugin, facts);
  }

  /**
   * Null when the binary is where the runtime looks. A runtime bin dir that is not under the host
   * root at all is a gap in the probe's mounts, not a fact about the node: RKE2's and CRI-O's dirs
   * are outside the chart's default hostPaths, and calling that "absent" would steer pods away from
   * nodes whose CNI works.
   */
  private Outcome pluginBinary(RuntimeCni runtime, String plugin, Map<String, String> facts) {
    List<String> notVisible = new ArrayList<>();
    try {
      for (String dir : runtime.binDirs()) {
        if (!RuntimeCni.exists(host, dir)) {
          notVisible.add(dir);
        } else if (host.isFile(dir + "/" + plugin)) {
          facts.put(CNI_PLUGIN_BINARY, dir + "/" + plugin);
          return null;
        }
      }
    } catch (HostReadException e) {
      facts.put(CNI_PLUGIN_BINARY, unknown(e.getMessage()));
      return Outcome.unknown("cannot check the " + plugin + " binary: " + e.getMessage());
    }
    String looked = String.join(", ", runtime.binDirs());
    String elsewhere = misplaced(runtime, plugin);
    if (!notVisible.isEmpty()) {
      String dirs = String.join(", ", notVisible);
      facts.put(
          CNI_PLUGIN_BINARY,
          unknown(
              dirs
                  + (notVisible.size() == 1 ? " is" : " are")
                  + " not visible under the host root"
                  + (elsewhere != null
                      ? "; found " + elsewhere + ", not read by the runtime"
                      : "")));
      return Outcome.unknown(
          "cannot check the "
              + plugin
              + " binary: "
              + runtime.runtime()
              + "'s CNI bin dir "
              + dirs
              + (notVisible.size() == 1 ? " is" : " are")
              + " not visible under the host root ("
              + runtime.source()
              + "); "
              + notVisible.stream().map(HostProbe::mountHint).collect(Collectors.joining("; ")));
    }
    facts.put(CNI_PLUGIN_BINARY, "missing");
    if (elsewhere != null) {
      String dir = elsewhere.substring(0, elsewhere.lastIndexOf('/'));
      facts.put(CNI_PLUGIN_BINARY, elsewhere + " (not read by the runtime)");
      return new Outcome(
          Verdict.ABSENT,
          plugin
              + " binary is in "
              + dir
              + " but "
              + runtime.runtime()
              + " reads "
              + looked
              + ": install the CNI plugin into "
              + runtime.binDirs().get(0)
              + " (linkerd2-cni chart value destCNIBinDir) or point the runtime's CNI bin"
              + " dir at "
              + dir);
    }
    return new Outcome(
        Verdict.ABSENT,
        plugin
            + " is chained but its binary is not in "
            + looked
            + " ("
            + runtime.runtime()
            + "'s CNI bin dir): every pod sandbox on this node fails until it is installed"
            + " there");
  }

  /** The plugin's binary in a well-known dir the runtime does not read, or null. */
  private String misplaced(RuntimeCni runtime, String plugin) {
    for (String dir : KNOWN_BIN_DIRS) {
      if (runtime.binDirs().contains(dir)) {
        continue;
      }
      try {
        if (host.isFile(dir + "/" + plugin)) {
          return dir + "/" + plugin;
        }
      } catch (HostReadException e) {
        // only a hint for the fix: an unreadable dir the runtime does not use changes no verdict
      }
    }
    return null;
  }

  /** The chart value that makes a host dir visible to the probe. */
  private static String mountHint(String dir) {
    return "add {path: " + dir + ", type: \"\"} to the chart's probe.extraHostPaths";
  }

  /**
   * The plugin runs the host's iptables through nsenter; the binaries its mode names must exist
   * there or every sandbox fails with "exit status 127" (seed 001, fixed by iptablesMode plain).
   */
  private static Outcome iptablesMode(
      CniChain chain, HostIptables iptables, String plugin, Map<String, String> facts) {
    com.fasterxml.jackson.databind.JsonNode linkerd = chain.plugin().get("linkerd");
    boolean noSection = linkerd == null || linkerd.isNull();
    if (noSection && !LINKERD_CNI.equals(chain.plugin().path("type").asText())) {
      facts.put(CNI_IPTABLES_MODE, "not configured by " + plugin);
      return new Outcome(
          Verdict.READY,
          plugin
              + " is chained in "
              + chain.active()
              + " and its binary is in place (no iptables-mode to check)");
    }
    if (!noSection && !linkerd.isObject()) {
      facts.put(CNI_IPTABLES_MODE, "unreadable (\"linkerd\" is not an object)");
      return new Outcome(
          Verdict.ABSENT,
          plugin
              + "'s \"linkerd\" section in "
              + chain.active()
              + " is not a JSON object, so the plugin cannot parse its config: reinstall the CNI"
              + " plugin's config");
    }
    // linkerd-cni reads a missing section as all zero values, and an empty iptables-mode as
    // legacy (linkerd2-proxy-init cni-plugin cmdAdd): both run iptables-legacy on the host
    String raw = noSection ? "" : linkerd.path("iptables-mode").asText("");
    String modeId = raw.isBlank() ? "legacy" : raw.strip();
    facts.put(
        CNI_IPTABLES_MODE,
        raw.isBlank()
            ? "legacy (default" + (noSection ? ", no linkerd section" : "") + ")"
            : modeId);
    var mode = CniIptablesMode.fromId(modeId);
    if (mode.isEmpty()) {
      return new Outcome(
          Verdict.ABSENT,
          plugin
              + " has iptables-mode '"
              + modeId
              + "', which it rejects: set the CNI's iptablesMode to legacy, nft or plain");
    }
    if (iptables == null || iptables.present() == null) {
      return Outcome.unknown(
          "cannot tell which iptables binaries the host has: "
              + (iptables == null ? "not measured" : iptables.problem()));
    }
    List<String> missing = mode.get().missingOn(iptables);
    if (missing.isEmpty()) {
      return new Outcome(
          Verdict.READY,
          plugin
              + " is chained in "
              + chain.active()
              + ", its binary is in place, and the host has the binaries iptables-mode "
              + modeId
              + " runs");
    }
    List<String> working = new ArrayList<>();
    for (CniIptablesMode m :
        List.of(CniIptablesMode.PLAIN, CniIptablesMode.NFT, CniIptablesMode.LEGACY)) {
      if (m.missingOn(iptables).isEmpty()) {
        working.add(m.id());
      }
    }
    String fix =
        working.isEmpty()
            ? "install the host's iptables package (iptables and iptables-save)"
            : "set the CNI's iptablesMode to "
                + working.get(0)
                + (working.size() > 1
                    ? " (also possible: "
                        + String.join(", ", working.subList(1, working.size()))
                        + ")"
                    : "");
    return new Outcome(
        Verdict.ABSENT,
        plugin
            + " iptables-mode "
            + modeId
            + " runs "
            + String.join(
                ", ", mode.get() == CniIptablesMode.AUTO ? missing : mode.get().binaries())
            + " on the host, which lacks "
            + String.join(", ", missing)
            + " (pod sandboxes fail with \"exit status 127\"): "
            + fix);
  }

  private String selinux() {
    try {
      String enforce = host.read("/sys/fs/selinux/enforce").strip();
      return switch (enforce) {
        case "1" -> "enforcing";
        case "0" -> "permissive";
        default -> unknown("/sys/fs/selinux/enforce holds '" + enforce + "'");
      };
    } catch (HostReadException e) {
      // selinuxfs is only mounted into the probe on request; the config says what boots
    }
    try {
      for (String line : host.read("/etc/selinux/config").split("\n")) {
        String t = line.strip();
        if (t.startsWith("SELINUX=")) {
          return t.substring("SELINUX=".length()).strip().toLowerCase(java.util.Locale.ROOT)
              + " (configured in /etc/selinux/config)";
        }
      }
      return unknown("/etc/selinux/config has no SELINUX= line");
    } catch (HostReadException e) {
      return e.missing()
          ? "not present (no /sys/fs/selinux/enforce, no /etc/selinux/config)"
          : unknown(e.getMessage());
    }
  }

  private static String unknown(String reason) {
    return "unknown (" + reason + ")";
  }

  private static String internal(RuntimeException e) {
    return "probe error: " + e;
  }
}
