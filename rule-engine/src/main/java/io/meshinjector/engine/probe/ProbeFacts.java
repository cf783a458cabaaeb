package io.meshinjector.engine.probe;

import io.meshinjector.engine.capability.CapabilityKey;

/**
 * The fact keys a probe writes under {@code status.facts}, and how a fact reads when the probe
 * could not measure it. {@code reason.<capability>} holds why each verdict is what it is.
 */
public final class ProbeFacts {
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

  /** {@code active.<key>}: what the active check saw, whatever decided the verdict. */
  public static final String ACTIVE_PREFIX = "active.";

  /** {@code files.<key>}: the verdict the node's files alone give, and why. */
  public static final String FILES_PREFIX = "files.";

  private ProbeFacts() {}

  public static String reasonKey(CapabilityKey key) {
    return REASON_PREFIX + key.id();
  }

  public static String activeKey(CapabilityKey key) {
    return ACTIVE_PREFIX + key.id();
  }

  public static String filesKey(CapabilityKey key) {
    return FILES_PREFIX + key.id();
  }

  /** A fact the probe could not measure, with why. */
  public static String unknown(String reason) {
    return "unknown (" + reason + ")";
  }

  /** A fault in the probe itself, kept to the one fact or verdict it hit. */
  public static String internal(RuntimeException e) {
    return "probe error: " + e;
  }

  /** The chart value that makes a host dir visible to the probe. */
  public static String mountHint(String dir) {
    return "add {path: " + dir + ", type: \"\"} to the chart's probe.extraHostPaths";
  }
}
