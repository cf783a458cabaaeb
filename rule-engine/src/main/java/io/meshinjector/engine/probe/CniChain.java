package io.meshinjector.engine.probe;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;

/**
 * The network config the runtime actually uses and whether it chains the mesh plugin.
 *
 * <p>containerd and CRI-O load only the first file of the conf dir in byte order with extension
 * {@code .conf}, {@code .conflist} or {@code .json} (libcni's {@code ConfFiles}, containerd's
 * default {@code max_conf_num = 1}); a plugin chained in any later file is never called.
 *
 * @param active the first of the conf dir's {@link #candidates(List)}, or null when the node has no
 *     network config yet
 * @param plugin the mesh plugin's entry in the active file, or null when it is not chained there
 * @param chainedElsewhere a later file that does chain it, or null
 */
public record CniChain(String active, JsonNode plugin, String chainedElsewhere) {

  /** Conflists are a few kB; the caps keep a broken or hostile one cheap to reject. */
  private static final ObjectMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(64)
                          .maxStringLength(1 << 20)
                          .build())
                  .build())
          .build();

  private static final List<String> EXTENSIONS = List.of(".conf", ".conflist", ".json");

  /** The candidate config files of a conf dir listing (already in byte order), in load order. */
  public static List<String> candidates(List<String> names) {
    return names.stream()
        .filter(n -> !n.startsWith(".") && EXTENSIONS.stream().anyMatch(n::endsWith))
        .sorted()
        .toList();
  }

  /**
   * @throws MalformedHostFile {@code <file> is not valid JSON: ...} or {@code is not a JSON object}
   */
  public static JsonNode parse(String file, String text) throws MalformedHostFile {
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (JacksonException e) {
      throw new MalformedHostFile(file + " is not valid JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw new MalformedHostFile(file + " is not a JSON object");
    }
    return node;
  }

  /**
   * The mesh plugin's entry: a {@code .conflist} chains plugins under {@code plugins}; a {@code
   * .conf} is one plugin. Null when it is not there.
   */
  public static JsonNode find(JsonNode config, String pluginType) {
    JsonNode plugins = config.get("plugins");
    if (plugins != null && plugins.isArray()) {
      for (JsonNode p : plugins) {
        if (pluginType.equals(p.path("type").asText(null))) {
          return p;
        }
      }
      return null;
    }
    return pluginType.equals(config.path("type").asText(null)) ? config : null;
  }
}
