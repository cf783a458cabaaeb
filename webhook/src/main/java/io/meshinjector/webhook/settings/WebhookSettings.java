package io.meshinjector.webhook.settings;

import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The {@code webhook:} section of the configuration: the server's transport settings. Its defaults
 * live with every other default in the rule engine's {@code defaults.yaml}.
 */
public record WebhookSettings(
    int port,
    int metricsPort,
    int maxRequestBytes,
    int maxNestingDepth,
    int maxStringLength,
    LogFormat logFormat,
    Duration tlsReloadQuietPeriod,
    List<String> selfSignedNames,
    int selfSignedDays) {

  public WebhookSettings {
    checkPort("webhook.port", port);
    checkPort("webhook.metricsPort", metricsPort);
    ConfigException.requireAtLeastOne("webhook.maxRequestBytes", maxRequestBytes);
    ConfigException.requireAtLeastOne("webhook.maxNestingDepth", maxNestingDepth);
    ConfigException.requireAtLeastOne("webhook.maxStringLength", maxStringLength);
    ConfigException.requireAtLeastOne("webhook.selfSignedDays", selfSignedDays);
    selfSignedNames = List.copyOf(selfSignedNames);
    if (selfSignedNames.isEmpty()) {
      throw new ConfigException("config key 'webhook.selfSignedNames' must name at least one host");
    }
  }

  /** Console log formats; the JSON ones are Spring Boot's structured logging formats. */
  public enum LogFormat {
    TEXT(null),
    ECS("ecs"),
    LOGSTASH("logstash"),
    GELF("gelf");

    private final String springFormat;

    LogFormat(String springFormat) {
      this.springFormat = springFormat;
    }

    /** The value of {@code logging.structured.format.console}, or null for plain text. */
    public String springFormat() {
      return springFormat;
    }

    public static LogFormat parse(String text) {
      for (LogFormat f : values()) {
        if (f.name().equalsIgnoreCase(text)) {
          return f;
        }
      }
      throw new ConfigException(
          "log format '" + text + "' is not known: allowed [text, ecs, logstash, gelf]");
    }
  }

  public static WebhookSettings from(MeshConfig config) {
    ConfigSection s = config.section("webhook");
    WebhookSettings settings =
        new WebhookSettings(
            s.integer("port"),
            s.integer("metricsPort"),
            s.integer("maxRequestBytes"),
            s.integer("maxNestingDepth"),
            s.integer("maxStringLength"),
            s.choice(
                "logFormat",
                Map.of(
                    "text", LogFormat.TEXT,
                    "ecs", LogFormat.ECS,
                    "logstash", LogFormat.LOGSTASH,
                    "gelf", LogFormat.GELF)),
            s.duration("tlsReloadQuietPeriod"),
            s.strings("selfSignedNames"),
            s.integer("selfSignedDays"));
    // bound by io.meshinjector.webhook.tls.TlsSettings and ClusterSettings
    s.skip("tls");
    s.skip("cluster");
    // bound by io.meshinjector.webhook.settings.PodLimits,
    // io.meshinjector.webhook.settings.ServerSettings and WarmupSettings
    s.skip("podLimits");
    s.skip("server");
    s.skip("warmup");
    s.done();
    return settings;
  }

  public WebhookSettings withPort(int newPort) {
    return new WebhookSettings(
        newPort,
        metricsPort,
        maxRequestBytes,
        maxNestingDepth,
        maxStringLength,
        logFormat,
        tlsReloadQuietPeriod,
        selfSignedNames,
        selfSignedDays);
  }

  public WebhookSettings withMetricsPort(int newPort) {
    return new WebhookSettings(
        port,
        newPort,
        maxRequestBytes,
        maxNestingDepth,
        maxStringLength,
        logFormat,
        tlsReloadQuietPeriod,
        selfSignedNames,
        selfSignedDays);
  }

  public WebhookSettings withLogFormat(LogFormat format) {
    return new WebhookSettings(
        port,
        metricsPort,
        maxRequestBytes,
        maxNestingDepth,
        maxStringLength,
        format,
        tlsReloadQuietPeriod,
        selfSignedNames,
        selfSignedDays);
  }

  private static void checkPort(String key, int port) {
    // 0 asks the OS for a free port: the tests use it
    if (port < 0 || port > 65535) {
      throw new ConfigException("config key '" + key + "' must be a port number, not " + port);
    }
  }
}
