package io.meshinjector.engine.config;

/** An invalid configuration; the message names the key. */
public class ConfigException extends IllegalArgumentException {
  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
