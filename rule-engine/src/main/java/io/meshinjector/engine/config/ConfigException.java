package io.meshinjector.engine.config;

import java.time.Duration;

/** An invalid configuration; the message names the key. */
public class ConfigException extends IllegalArgumentException {
  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The checks every settings record makes on its numbers, worded the same for every key. */
  public static void requireAtLeastOne(String key, int value) {
    if (value < 1) {
      throw new ConfigException("config key '" + key + "' must be at least 1, not " + value);
    }
  }

  public static void requirePositive(String key, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new ConfigException(
          "config key '" + key + "' must be a positive duration, not " + value);
    }
  }
}
