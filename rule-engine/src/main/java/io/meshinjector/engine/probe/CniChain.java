package io.meshinjector.engine.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/**
 * The network config the runtime actually uses and whether it chains the mesh plugin.
 *
 * <p>containerd and CRI-O load only the first file of the conf dir in byte order with extension
 * {@code .conf}, {@code .conflist} or {@code .json} (libcni's {@code ConfFiles}, containerd's
 * default {@code max_conf_num = 1}); a plugin chained in any later file is never called.
 *
 * @param configs the candidate files, sorted; empty when the node has no network config yet
 * @param active the first of them, or null
 * @param plugin the mesh plugin's entry in the active file, or null when it is not chained there
 * @param chainedElsewhere a later file that does chain it, or null
 */
record CniChain(
    String confDir, List<String> configs, String active, JsonNode plugin, String chainedElsewhere) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> EXTENSIONS = List.of(".conf", ".conflist", ".json");

  /**
   * @throws HostReadException when the dir, or the active file, cannot be read or parsed
   */
  static CniChain read(HostRoot host, String confDir, String pluginType) throws HostReadException {
    List<String> configs =
        host.list(confDir).stream()
            .filter(n -> !n.startsWith(".") && EXTENSIONS.stream().anyMatch(n::endsWith))
            .toList();
    if (configs.isEmpty()) {
      return new CniChain(confDir, configs, null, null, null);
    }
    String active = configs.get(0);
    JsonNode plugin = find(parse(host, confDir + "/" + active), pluginType);
    String elsewhere = null;
    if (plugin == null) {
      for (String other : configs.subList(1, configs.size())) {
        try {
          if (find(parse(host, confDir + "/" + other), pluginType) != null) {
            elsewhere = other;
            break;
          }
        } catch (HostReadException e) {
          // only a hint: an unreadable inactive file changes no verdict
        }
      }
    }
    return new CniChain(confDir, configs, active, plugin, elsewhere);
  }

  private static JsonNode parse(HostRoot host, String file) throws HostReadException {
    String text = host.read(file);
    try {
      JsonNode node = JSON.readTree(text);
      if (node == null || !node.isObject()) {
        throw new HostReadException(file + " is not a JSON object", false);
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new HostReadException(file + " is not valid JSON: " + e.getOriginalMessage(), false);
    }
  }

  /** A {@code .conflist} chains plugins under {@code plugins}; a {@code .conf} is one plugin. */
  private static JsonNode find(JsonNode config, String pluginType) {
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
