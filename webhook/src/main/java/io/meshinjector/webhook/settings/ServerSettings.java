package io.meshinjector.webhook.settings;

import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;
import java.time.Duration;

/**
 * The {@code webhook.server:} section: how the HTTPS server shuts down and the limits that keep
 * slow, stuck or too many clients from holding its connections.
 *
 * @param drainPeriod after SIGTERM, how long {@code /readyz} is 503 while requests are still served
 * @param shutdownTimeout after the drain, how long requests in flight get to finish
 * @param headerTimeout a new connection's TLS handshake and first request headers must arrive
 *     within this
 * @param readTimeout the longest a request body may stall between two reads
 * @param idleTimeout a connection with no request in progress is closed after this long quiet
 * @param maxConnections open connections at most; past it new ones wait in the accept backlog
 * @param acceptBacklog connections the OS queues once {@code maxConnections} are open
 * @param maxEventLoops event loops at most (one per core up to this)
 */
public record ServerSettings(
    Duration drainPeriod,
    Duration shutdownTimeout,
    Duration headerTimeout,
    Duration readTimeout,
    Duration idleTimeout,
    int maxConnections,
    int acceptBacklog,
    int maxEventLoops) {
  private static final String KEY = "webhook.server.";

  public ServerSettings {
    if (drainPeriod == null || drainPeriod.isNegative()) {
      throw new ConfigException("config key '" + KEY + "drainPeriod' must be 0s or longer");
    }
    ConfigException.requirePositive(KEY + "shutdownTimeout", shutdownTimeout);
    ConfigException.requirePositive(KEY + "headerTimeout", headerTimeout);
    ConfigException.requirePositive(KEY + "readTimeout", readTimeout);
    ConfigException.requirePositive(KEY + "idleTimeout", idleTimeout);
    ConfigException.requireAtLeastOne(KEY + "maxConnections", maxConnections);
    ConfigException.requireAtLeastOne(KEY + "acceptBacklog", acceptBacklog);
    ConfigException.requireAtLeastOne(KEY + "maxEventLoops", maxEventLoops);
  }

  public static ServerSettings from(MeshConfig config) {
    ConfigSection s = config.section("webhook").section("server");
    ServerSettings settings =
        new ServerSettings(
            s.duration("drainPeriod"),
            s.duration("shutdownTimeout"),
            s.duration("headerTimeout"),
            s.duration("readTimeout"),
            s.duration("idleTimeout"),
            s.integer("maxConnections"),
            s.integer("acceptBacklog"),
            s.integer("maxEventLoops"));
    s.done();
    return settings;
  }
}
