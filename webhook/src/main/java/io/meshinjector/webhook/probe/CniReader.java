package io.meshinjector.webhook.probe;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.probe.CniChain;
import io.meshinjector.engine.probe.CniMeasurement;
import io.meshinjector.engine.probe.CniMeasurement.BinaryLookup;
import io.meshinjector.engine.probe.CniVerdict;
import io.meshinjector.engine.probe.MalformedHostFile;
import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.RuntimeCni;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads what the mesh CNI verdict rests on: the runtime's dirs, the network configs in its conf
 * dir, and where the plugin's binary is.
 */
final class CniReader {
  private CniReader() {}

  static CniMeasurement read(HostRoot host, ProbeOptions options) {
    RuntimeCni runtime;
    try {
      runtime = RuntimeReader.read(host, options);
    } catch (HostReadException e) {
      return new CniMeasurement.RuntimeUnreadable(e.getMessage());
    }
    CniChain chain;
    try {
      chain = chain(host, runtime.confDir(), options.cniPluginType());
    } catch (HostReadException e) {
      return new CniMeasurement.ConfUnreadable(runtime, e.getMessage(), e.missing());
    }
    BinaryLookup binary =
        chain.plugin() != null ? binary(host, runtime, options.cniPluginType()) : null;
    return new CniMeasurement.Measured(runtime, chain, binary);
  }

  /**
   * @throws HostReadException when the dir, or the active file, cannot be read or parsed
   */
  private static CniChain chain(HostRoot host, String confDir, String pluginType)
      throws HostReadException {
    List<String> configs = CniChain.candidates(host.list(confDir));
    if (configs.isEmpty()) {
      return new CniChain(null, null, null);
    }
    String active = configs.get(0);
    JsonNode plugin = CniChain.find(parse(host, confDir + "/" + active), pluginType);
    String elsewhere = null;
    if (plugin == null) {
      for (String other : configs.subList(1, configs.size())) {
        try {
          if (CniChain.find(parse(host, confDir + "/" + other), pluginType) != null) {
            elsewhere = other;
            break;
          }
        } catch (HostReadException e) {
          // only a hint: an unreadable inactive file changes no verdict
        }
      }
    }
    return new CniChain(active, plugin, elsewhere);
  }

  private static JsonNode parse(HostRoot host, String file) throws HostReadException {
    String text = host.read(file);
    try {
      return CniChain.parse(file, text);
    } catch (MalformedHostFile e) {
      throw new HostReadException(e.getMessage(), false);
    }
  }

  /** Looks in the runtime's bin dirs in order, then in the well-known ones it does not read. */
  private static BinaryLookup binary(HostRoot host, RuntimeCni runtime, String plugin) {
    List<String> notVisible = new ArrayList<>();
    try {
      for (String dir : runtime.binDirs()) {
        if (!host.exists(dir)) {
          notVisible.add(dir);
        } else if (host.isFile(dir + "/" + plugin)) {
          return BinaryLookup.at(dir + "/" + plugin);
        }
      }
    } catch (HostReadException e) {
      return BinaryLookup.failed(e.getMessage());
    }
    return new BinaryLookup(null, notVisible, misplaced(host, runtime, plugin), null);
  }

  private static String misplaced(HostRoot host, RuntimeCni runtime, String plugin) {
    for (String dir : CniVerdict.KNOWN_BIN_DIRS) {
      if (runtime.binDirs().contains(dir)) {
        continue;
      }
      try {
        if (host.isFile(dir + "/" + plugin)) {
          return dir + "/" + plugin;
        }
      } catch (HostReadException e) {
        // only a hint for the fix: an unreadable dir the runtime does not use changes no verdict
      }
    }
    return null;
  }
}
