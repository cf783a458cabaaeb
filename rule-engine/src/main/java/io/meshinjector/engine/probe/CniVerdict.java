package io.meshinjector.engine.probe;

import static io.meshinjector.engine.probe.ProbeFacts.mountHint;
import static io.meshinjector.engine.probe.ProbeFacts.unknown;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.probe.CniMeasurement.BinaryLookup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The {@code cni} verdict: the mesh plugin chained in the config the runtime uses, its binary where
 * the runtime looks, and the host binaries its iptables mode runs.
 */
public final class CniVerdict {
  /** Where plugins end up when an installer and the runtime disagree (docs/node-probe.md). */
  public static final List<String> KNOWN_BIN_DIRS =
      List.of("/opt/cni/bin", "/etc/cni/bin", "/usr/libexec/cni", "/usr/lib/cni");

  private static final String LINKERD_CNI = "linkerd-cni";

  private CniVerdict() {}

  public static ProbeFinding decide(
      CniMeasurement measured,
      HostIptables iptables,
      ProbeOptions options,
      Map<String, String> facts) {
    String plugin = options.cniPluginType();
    // Java 17 has no pattern switch: the sealed interface's four kinds, in turn
    if (measured instanceof CniMeasurement.RuntimeUnreadable r) {
      facts.put(ProbeFacts.CONTAINER_RUNTIME, unknown(r.problem()));
      return ProbeFinding.unknown(
          "cannot read the container runtime's CNI settings: " + r.problem());
    }
    if (measured instanceof CniMeasurement.ConfUnreadable c) {
      runtimeFacts(c.runtime(), facts);
      facts.put(ProbeFacts.CNI_CONF, unknown(c.problem()));
      return ProbeFinding.unknown(
          "cannot read the CNI config: " + c.problem() + confHint(c, options));
    }
    if (measured instanceof CniMeasurement.Measured m) {
      runtimeFacts(m.runtime(), facts);
      return chained(m, iptables, plugin, facts);
    }
    return ProbeFinding.unknown(((CniMeasurement.Failed) measured).problem());
  }

  private static void runtimeFacts(RuntimeCni runtime, Map<String, String> facts) {
    facts.put(ProbeFacts.CONTAINER_RUNTIME, runtime.runtime() + " (" + runtime.source() + ")");
    facts.put(ProbeFacts.CNI_CONF_DIR, runtime.confDir());
    facts.put(ProbeFacts.CNI_BIN_DIR, String.join(",", runtime.binDirs()));
  }

  private static String confHint(CniMeasurement.ConfUnreadable c, ProbeOptions options) {
    RuntimeCni runtime = c.runtime();
    if (!c.missing() || runtime.confDir().equals(options.defaultCniConfDir())) {
      return "";
    }
    return " ("
        + runtime.runtime()
        + " reads it instead of "
        + options.defaultCniConfDir()
        + "; "
        + mountHint(runtime.confDir())
        + ")";
  }

  private static ProbeFinding chained(
      CniMeasurement.Measured m, HostIptables iptables, String plugin, Map<String, String> facts) {
    RuntimeCni runtime = m.runtime();
    CniChain chain = m.chain();
    if (chain.active() == null) {
      facts.put(ProbeFacts.CNI_CONF, "none");
      return new ProbeFinding(
          Verdict.ABSENT,
          "no CNI network config in "
              + runtime.confDir()
              + ": the node's network plugin is not installed yet");
    }
    facts.put(ProbeFacts.CNI_CONF, runtime.confDir() + "/" + chain.active());
    if (chain.plugin() == null) {
      if (chain.chainedElsewhere() != null) {
        return new ProbeFinding(
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
      return new ProbeFinding(
          Verdict.ABSENT,
          plugin
              + " is not chained in "
              + chain.active()
              + ": install the "
              + plugin
              + " DaemonSet, or wait until it is ready on this node");
    }
    BinaryLookup binary =
        m.binary() != null ? m.binary() : BinaryLookup.failed("the binary was not looked for");
    ProbeFinding missing = pluginBinary(runtime, plugin, binary, facts);
    if (missing != null) {
      return missing;
    }
    return iptablesMode(chain, iptables, plugin, facts);
  }

  /**
   * Null when the binary is where the runtime looks. A runtime bin dir that is not under the host
   * root at all is a gap in the probe's mounts, not a fact about the node: RKE2's and CRI-O's dirs
   * are outside the chart's default hostPaths, and calling that "absent" would steer pods away from
   * nodes whose CNI works.
   */
  private static ProbeFinding pluginBinary(
      RuntimeCni runtime, String plugin, BinaryLookup binary, Map<String, String> facts) {
    if (binary.problem() != null) {
      facts.put(ProbeFacts.CNI_PLUGIN_BINARY, unknown(binary.problem()));
      return ProbeFinding.unknown("cannot check the " + plugin + " binary: " + binary.problem());
    }
    if (binary.found() != null) {
      facts.put(ProbeFacts.CNI_PLUGIN_BINARY, binary.found());
      return null;
    }
    String looked = String.join(", ", runtime.binDirs());
    String elsewhere = binary.misplaced();
    List<String> notVisible = binary.notVisible();
    if (!notVisible.isEmpty()) {
      String dirs = String.join(", ", notVisible);
      String are = notVisible.size() == 1 ? " is" : " are";
      facts.put(
          ProbeFacts.CNI_PLUGIN_BINARY,
          unknown(
              dirs
                  + are
                  + " not visible under the host root"
                  + (elsewhere != null
                      ? "; found " + elsewhere + ", not read by the runtime"
                      : "")));
      return ProbeFinding.unknown(
          "cannot check the "
              + plugin
              + " binary: "
              + runtime.runtime()
              + "'s CNI bin dir "
              + dirs
              + are
              + " not visible under the host root ("
              + runtime.source()
              + "); "
              + notVisible.stream().map(ProbeFacts::mountHint).collect(Collectors.joining("; ")));
    }
    if (elsewhere != null) {
      String dir = elsewhere.substring(0, Math.max(0, elsewhere.lastIndexOf('/')));
      facts.put(ProbeFacts.CNI_PLUGIN_BINARY, elsewhere + " (not read by the runtime)");
      return new ProbeFinding(
          Verdict.ABSENT,
          plugin
              + " binary is in "
              + dir
              + " but "
              + runtime.runtime()
              + " reads "
              + looked
              + ": install the CNI plugin into "
              + (runtime.binDirs().isEmpty() ? looked : runtime.binDirs().get(0))
              + " (linkerd2-cni chart value destCNIBinDir) or point the runtime's CNI bin"
              + " dir at "
              + dir);
    }
    facts.put(ProbeFacts.CNI_PLUGIN_BINARY, "missing");
    return new ProbeFinding(
        Verdict.ABSENT,
        plugin
            + " is chained but its binary is not in "
            + looked
            + " ("
            + runtime.runtime()
            + "'s CNI bin dir): every pod sandbox on this node fails until it is installed"
            + " there");
  }

  /**
   * The plugin runs the host's iptables through nsenter; the binaries its mode names must exist
   * there or every sandbox fails with "exit status 127" (fixed by iptablesMode plain).
   */
  private static ProbeFinding iptablesMode(
      CniChain chain, HostIptables iptables, String plugin, Map<String, String> facts) {
    JsonNode linkerd = chain.plugin().get("linkerd");
    boolean noSection = linkerd == null || linkerd.isNull();
    if (noSection && !LINKERD_CNI.equals(chain.plugin().path("type").asText())) {
      facts.put(ProbeFacts.CNI_IPTABLES_MODE, "not configured by " + plugin);
      return new ProbeFinding(
          Verdict.READY,
          plugin
              + " is chained in "
              + chain.active()
              + " and its binary is in place (no iptables-mode to check)");
    }
    if (!noSection && !linkerd.isObject()) {
      facts.put(ProbeFacts.CNI_IPTABLES_MODE, "unreadable (\"linkerd\" is not an object)");
      return new ProbeFinding(
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
        ProbeFacts.CNI_IPTABLES_MODE,
        raw.isBlank()
            ? "legacy (default" + (noSection ? ", no linkerd section" : "") + ")"
            : modeId);
    var mode = CniIptablesMode.fromId(modeId);
    if (mode.isEmpty()) {
      return new ProbeFinding(
          Verdict.ABSENT,
          plugin
              + " has iptables-mode '"
              + modeId
              + "', which it rejects: set the CNI's iptablesMode to legacy, nft or plain");
    }
    if (iptables == null || iptables.present() == null) {
      return ProbeFinding.unknown(
          "cannot tell which iptables binaries the host has: "
              + (iptables == null ? "not measured" : iptables.problem()));
    }
    List<String> missing = mode.get().missingOn(iptables);
    if (missing.isEmpty()) {
      return new ProbeFinding(
          Verdict.READY,
          plugin
              + " is chained in "
              + chain.active()
              + ", its binary is in place, and the host has the binaries iptables-mode "
              + modeId
              + " runs");
    }
    return new ProbeFinding(
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
            + fixFor(iptables));
  }

  private static String fixFor(HostIptables iptables) {
    List<String> working = new ArrayList<>();
    for (CniIptablesMode m :
        List.of(CniIptablesMode.PLAIN, CniIptablesMode.NFT, CniIptablesMode.LEGACY)) {
      if (m.missingOn(iptables).isEmpty()) {
        working.add(m.id());
      }
    }
    if (working.isEmpty()) {
      return "install the host's iptables package (iptables and iptables-save)";
    }
    return "set the CNI's iptablesMode to "
        + working.get(0)
        + (working.size() > 1
            ? " (also possible: " + String.join(", ", working.subList(1, working.size())) + ")"
            : "");
  }
}
