package io.meshinjector.webhook.probe;

import io.meshinjector.engine.probe.MalformedHostFile;
import io.meshinjector.engine.probe.ProbeOptions;
import io.meshinjector.engine.probe.RuntimeCni;
import io.meshinjector.engine.probe.RuntimeCni.ConfigFile;
import io.meshinjector.engine.probe.RuntimeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the container runtime's config files (containerd's with its imports, or CRI-O's with its
 * drop-ins) for {@link RuntimeCni} to take the CNI dirs from.
 */
final class RuntimeReader {
  private RuntimeReader() {}

  /**
   * @throws HostReadException when a runtime config exists but cannot be read or parsed; the
   *     runtime's dirs are then unknown, and guessing the default would hide a bin dir mismatch
   */
  static RuntimeCni read(HostRoot host, ProbeOptions options) throws HostReadException {
    boolean containerd = host.exists(RuntimeCni.CONTAINERD_CONFIG);
    boolean crio = host.exists(RuntimeCni.CRIO_CONFIG) || host.exists(RuntimeCni.CRIO_DROP_INS);
    if (crio && !containerd) {
      return RuntimeCni.crio(options, crioFiles(host));
    }
    RuntimeCni c =
        containerd
            ? RuntimeCni.containerd(options, containerdFiles(host))
            : RuntimeCni.containerdDefaults(options);
    return crio ? c.withCrioAlsoPresent() : c;
  }

  private static List<ConfigFile> containerdFiles(HostRoot host) throws HostReadException {
    List<ConfigFile> files = new ArrayList<>();
    Map<String, Object> main = parse(host, RuntimeCni.CONTAINERD_CONFIG);
    files.add(new ConfigFile(RuntimeCni.CONTAINERD_CONFIG, main));
    for (String pattern : RuntimeCni.containerdImports(main)) {
      for (String path : expandImport(host, RuntimeCni.importPath(pattern))) {
        files.add(new ConfigFile(path, parse(host, path)));
      }
    }
    return files;
  }

  private static List<ConfigFile> crioFiles(HostRoot host) throws HostReadException {
    List<String> paths = new ArrayList<>();
    if (host.exists(RuntimeCni.CRIO_CONFIG)) {
      paths.add(RuntimeCni.CRIO_CONFIG);
    }
    if (host.exists(RuntimeCni.CRIO_DROP_INS)) {
      for (String name : host.list(RuntimeCni.CRIO_DROP_INS)) {
        if (RuntimeCni.isCrioDropIn(name)) {
          paths.add(RuntimeCni.CRIO_DROP_INS + "/" + name);
        }
      }
    }
    List<ConfigFile> files = new ArrayList<>();
    for (String path : paths) {
      files.add(new ConfigFile(path, parse(host, path)));
    }
    return files;
  }

  private static Map<String, Object> parse(HostRoot host, String file) throws HostReadException {
    String text = host.read(file);
    try {
      return RuntimeConfig.parse(file, text);
    } catch (MalformedHostFile e) {
      throw new HostReadException(e.getMessage(), false);
    }
  }

  /** containerd imports: absolute or relative to the main config, with globs in the file name. */
  private static List<String> expandImport(HostRoot host, String path) throws HostReadException {
    if (!RuntimeCni.isGlob(path)) {
      return host.exists(path) ? List.of(path) : List.of();
    }
    String dir = RuntimeCni.importDir(path);
    if (!host.exists(dir)) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String name : host.list(dir)) {
      if (RuntimeCni.matchesImport(path, name)) {
        out.add((dir.equals("/") ? "" : dir) + "/" + name);
      }
    }
    return out;
  }
}
