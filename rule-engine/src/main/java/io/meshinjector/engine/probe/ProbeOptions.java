package io.meshinjector.engine.probe;

import java.util.Objects;

/**
 * What the probe looks for.
 *
 * @param cniPluginType the mesh CNI plugin's {@code type} in the chained conflist
 * @param defaultCniBinDir where the runtime looks for plugins when its config does not say
 * @param defaultCniConfDir where the runtime reads network configs when its config does not say
 */
public record ProbeOptions(
    String cniPluginType, String defaultCniBinDir, String defaultCniConfDir) {

  public static final String LINKERD_CNI = "linkerd-cni";

  public ProbeOptions {
    Objects.requireNonNull(cniPluginType, "cniPluginType");
    Objects.requireNonNull(defaultCniBinDir, "defaultCniBinDir");
    Objects.requireNonNull(defaultCniConfDir, "defaultCniConfDir");
  }

  public static ProbeOptions defaults() {
    return new ProbeOptions(LINKERD_CNI, "/opt/cni/bin", "/etc/cni/net.d");
  }

  public ProbeOptions withCniPluginType(String type) {
    return new ProbeOptions(type, defaultCniBinDir, defaultCniConfDir);
  }
}
