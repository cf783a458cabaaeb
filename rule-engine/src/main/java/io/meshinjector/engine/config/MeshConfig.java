package io.meshinjector.engine.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The whole configuration: the merged tree (embedded defaults overlaid with the user's file) and
 * the engine's typed view of it. Other modules bind their own sections from {@link #tree()}.
 */
public record MeshConfig(JsonNode tree, EngineConfig engine) {
  public MeshConfig {
    Objects.requireNonNull(tree, "tree");
    Objects.requireNonNull(engine, "engine");
    tree = tree.deepCopy();
  }

  /** A reader over one top-level section, for the modules that own it. */
  public ConfigSection section(String name) {
    return new ConfigSection(tree, "").section(name);
  }
}
