package io.meshinjector.engine.config;

/** What to do when no path works on any candidate node. */
public enum NoViablePath {
  REJECT,
  /** Admit the pod without injection and warn. */
  SKIP
}
