package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.templates.TemplateConfig.AppProbes;
import io.meshinjector.templates.TemplateConfig.Firewall;
import io.meshinjector.templates.TemplateConfig.Ports;
import io.meshinjector.templates.TemplateConfig.Proxy;
import io.meshinjector.templates.TemplateConfig.ProxyInit;
import io.meshinjector.templates.TemplateConfig.Validator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Binds and checks the {@code proxy}, {@code proxyInit}, {@code validator} and {@code proxyAwait}
 * sections into {@link TemplateConfig}'s value types; each key is read, so that an unknown one
 * fails. A key only the templates use (as the value of its dotted name) is checked and not kept.
 */
final class ConfigSections {
  private ConfigSections() {}

  /** Checks the section; only the templates use it. */
  static void proxyAwait(ConfigSection s) {
    s.text("command");
    s.text("timeout");
    s.done();
  }

  static Proxy proxy(ConfigSection s) {
    ConfigSection portSection = s.section("ports");
    port(portSection, "inbound");
    port(portSection, "outbound");
    Ports ports = new Ports(port(portSection, "admin"), port(portSection, "control"));
    portSection.done();
    String image = nonEmpty(s, "image");
    String version = nonEmpty(s, "version");
    String pullPolicy =
        s.choice(
            "imagePullPolicy",
            Map.of("Always", "Always", "IfNotPresent", "IfNotPresent", "Never", "Never"));
    checkUid(s, "uid");
    nonEmpty(s, "controlPlaneNamespace");
    Proxy proxy =
        new Proxy(
            image,
            version,
            pullPolicy,
            ports,
            s.text("trustAnchorsPEM"),
            appProbes(s.section("appProbes")));
    for (String k :
        List.of(
            "logLevel",
            "logFormat",
            "clusterDomain",
            "trustDomain",
            "clusterNetworks",
            "defaultInboundPolicy",
            "opaquePorts",
            "requireIdentityOnInboundPorts",
            "inboundConnectTimeout",
            "outboundConnectTimeout",
            "inboundDiscoveryCacheUnusedTimeout",
            "outboundDiscoveryCacheUnusedTimeout",
            "shutdownGracePeriod",
            "coresMaxRatio")) {
      s.text(k);
    }
    s.choice("logHTTPHeaders", Map.of("off", "off", "insecure", "insecure"));
    s.choice("accessLog", Map.of("", "", "apache", "apache", "json", "json"));
    for (String k :
        List.of(
            "enableShutdownEndpoint",
            "metricsHostnameLabels",
            "enableExternalProfiles",
            "disableInboundProtocolDetectTimeout",
            "disableOutboundProtocolDetectTimeout",
            "isGateway")) {
      s.bool(k);
    }
    if (s.integer("cores") < 1) {
      throw new ConfigException("config key '" + s.key("cores") + "' must be at least 1");
    }
    if (s.integer("coresMax") < 0 || s.integer("waitBeforeExitSeconds") < 0) {
      throw new ConfigException(
          "config keys '"
              + s.key("coresMax")
              + "' and '"
              + s.key("waitBeforeExitSeconds")
              + "' must not be negative");
    }
    if (s.integer("gid") < -1) {
      throw new ConfigException("config key '" + s.key("gid") + "' must be -1 (none) or a gid");
    }
    JsonNode env = s.raw("additionalEnv");
    if (env == null || !env.isArray()) {
      throw new ConfigException("config key '" + s.key("additionalEnv") + "' must be a list");
    }
    ConfigSection debug = s.section("debugContainer");
    nonEmpty(debug, "image");
    debug.text("version");
    debug.choice(
        "imagePullPolicy",
        Map.of("", "", "Always", "Always", "IfNotPresent", "IfNotPresent", "Never", "Never"));
    debug.done();
    JsonNode resources = s.raw("resources");
    if (resources == null || !resources.isObject()) {
      throw new ConfigException("config key '" + s.key("resources") + "' must be a map");
    }
    s.done();
    return proxy;
  }

  private static AppProbes appProbes(ConfigSection s) {
    AppProbes a =
        new AppProbes(
            s.bool("rewrite"), s.text("podValue"), s.text("probePath"), s.text("hookPath"));
    if (!a.probePath().contains("{container}") || !a.probePath().contains("{probe}")) {
      throw new ConfigException(
          "config key '" + s.key("probePath") + "' must contain {container} and {probe}");
    }
    if (!a.hookPath().isEmpty()
        && (!a.hookPath().contains("{container}") || !a.hookPath().contains("{hook}"))) {
      throw new ConfigException(
          "config key '" + s.key("hookPath") + "' must be empty or contain {container} and {hook}");
    }
    s.done();
    return a;
  }

  static ProxyInit proxyInit(ConfigSection s) {
    ConfigSection firewallSection = s.section("firewall");
    Map<IptablesMode, Firewall> firewall = new EnumMap<>(IptablesMode.class);
    for (IptablesMode mode : IptablesMode.values()) {
      if (!mode.iptables()) {
        continue; // native nftables runs no iptables binary: Linkerd's proxy-init has no such mode
      }
      ConfigSection modeSection = firewallSection.section(mode.id());
      firewall.put(
          mode, new Firewall(nonEmpty(modeSection, "bin"), nonEmpty(modeSection, "saveBin")));
      modeSection.done();
    }
    firewallSection.done();
    String image = s.text("image");
    checkUid(s, "runAsUser");
    ProxyInit init =
        new ProxyInit(
            image,
            s.strings("ignoreInboundPorts"),
            s.strings("ignoreOutboundPorts"),
            s.strings("skipSubnets"),
            firewall);
    nonEmpty(s, "command");
    s.bool("ipv6");
    s.done();
    return init;
  }

  static Validator validator(ConfigSection s) {
    Validator v = new Validator(s.text("image"));
    checkUid(s, "runAsUser");
    // empty: the template's default for the plan's address family
    s.text("connectAddr");
    s.text("listenAddr");
    for (String k : List.of("command", "timeout", "logLevel", "logFormat")) {
      nonEmpty(s, k);
    }
    s.done();
    return v;
  }

  private static String nonEmpty(ConfigSection s, String key) {
    String v = s.text(key);
    if (v.isBlank()) {
      throw new ConfigException("config key '" + s.key(key) + "' must not be empty");
    }
    return v;
  }

  private static int port(ConfigSection s, String key) {
    int v = s.integer(key);
    if (v < 1 || v > 65535) {
      throw new ConfigException("config key '" + s.key(key) + "' must be a port (1-65535)");
    }
    return v;
  }

  // Pod Security restricted and the init container's non-root rule both refuse uid 0.
  private static void checkUid(ConfigSection s, String key) {
    if (s.integer(key) < 1) {
      throw new ConfigException("config key '" + s.key(key) + "' must be a non-root uid (>= 1)");
    }
  }
}
