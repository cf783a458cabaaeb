package io.meshinjector.engine.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where the node's container runtime looks for CNI plugins and network configs. Seed 003: after a
 * move from Docker to containerd the plugins sat in {@code /etc/cni/bin} while containerd read
 * {@code /opt/cni/bin}, and every sandbox failed.
 *
 * @param runtime {@code containerd} or {@code cri-o}
 * @param source which config files the dirs came from, or that defaults apply
 * @param binDirs the plugin dirs the runtime searches, in its order
 * @param confDir the network config dir the runtime reads
 */
record RuntimeCni(String runtime, String source, List<String> binDirs, String confDir) {

  static final String CONTAINERD_CONFIG = "/etc/containerd/config.toml";
  static final String CRIO_CONFIG = "/etc/crio/crio.conf";
  static final String CRIO_DROP_INS = "/etc/crio/crio.conf.d";

  /**
   * The CRI plugin's id by containerd config version: 3 (containerd 2.x), 2, and 1 (where it was
   * plain {@code cri}).
   */
  private static final List<String> CONTAINERD_CRI_PLUGINS =
      List.of("io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri", "cri");

  /**
   * @throws HostReadException when a runtime config exists but cannot be read or parsed; the
   *     runtime's dirs are then unknown, and guessing the default would hide seed 003's mismatch
   */
  static RuntimeCni read(HostRoot host, ProbeOptions options) throws HostReadException {
    boolean containerd = exists(host, CONTAINERD_CONFIG);
    boolean crio = exists(host, CRIO_CONFIG) || exists(host, CRIO_DROP_INS);
    if (crio && !containerd) {
      return readCrio(host, options);
    }
    RuntimeCni c = readContainerd(host, options, containerd);
    if (crio) {
      return new RuntimeCni(
          c.runtime,
          c.source + "; CRI-O config also present, assumed unused",
          c.binDirs,
          c.confDir);
    }
    return c;
  }

  private static RuntimeCni readContainerd(HostRoot host, ProbeOptions options, boolean present)
      throws HostReadException {
    List<String> binDirs = List.of(options.defaultCniBinDir());
    String confDir = options.defaultCniConfDir();
    if (!present) {
      return new RuntimeCni("containerd", "defaults, no " + CONTAINERD_CONFIG, binDirs, confDir);
    }
    List<String> files = new ArrayList<>();
    files.add(CONTAINERD_CONFIG);
    Map<String, Object> main = parse(host, CONTAINERD_CONFIG);
    // imports are merged over the main file in order, so a later file's cni settings win
    if (Toml.get(main, "imports") instanceof List<?> imports) {
      for (Object pattern : imports) {
        files.addAll(expandImport(host, String.valueOf(pattern)));
      }
    }
    List<String> used = new ArrayList<>();
    for (String file : files) {
      Map<String, Object> doc = file.equals(CONTAINERD_CONFIG) ? main : parse(host, file);
      for (String plugin : CONTAINERD_CRI_PLUGINS) {
        Object cni = Toml.get(doc, "plugins", plugin, "cni");
        if (!(cni instanceof Map<?, ?> table)) {
          continue;
        }
        boolean touched = false;
        if (table.get("bin_dirs") instanceof List<?> dirs && !dirs.isEmpty()) {
          binDirs = dirs.stream().map(d -> trimSlash(String.valueOf(d))).toList();
          touched = true;
        } else if (table.get("bin_dir") instanceof String dir && !dir.isBlank()) {
          binDirs = List.of(trimSlash(dir));
          touched = true;
        }
        if (table.get("conf_dir") instanceof String dir && !dir.isBlank()) {
          confDir = trimSlash(dir);
          touched = true;
        }
        if (touched && !used.contains(file)) {
          used.add(file);
        }
      }
    }
    String source =
        used.isEmpty()
            ? CONTAINERD_CONFIG + ", no cni dirs set, defaults apply"
            : String.join(", ", used);
    return new RuntimeCni("containerd", source, binDirs, confDir);
  }

  private static RuntimeCni readCrio(HostRoot host, ProbeOptions options) throws HostReadException {
    List<String> files = new ArrayList<>();
    if (exists(host, CRIO_CONFIG)) {
      files.add(CRIO_CONFIG);
    }
    if (exists(host, CRIO_DROP_INS)) {
      // drop-ins apply in lexical order over crio.conf
      for (String name : host.list(CRIO_DROP_INS)) {
        if (!name.startsWith(".")) {
          files.add(CRIO_DROP_INS + "/" + name);
        }
      }
    }
    List<String> binDirs = List.of(options.defaultCniBinDir());
    String confDir = options.defaultCniConfDir();
    List<String> used = new ArrayList<>();
    for (String file : files) {
      Map<String, Object> doc = parse(host, file);
      boolean touched = false;
      if (Toml.get(doc, "crio", "network", "plugin_dirs") instanceof List<?> dirs
          && !dirs.isEmpty()) {
        binDirs = dirs.stream().map(d -> trimSlash(String.valueOf(d))).toList();
        touched = true;
      } else if (Toml.get(doc, "crio", "network", "plugin_dir") instanceof String dir
          && !dir.isBlank()) {
        binDirs = List.of(trimSlash(dir));
        touched = true;
      }
      if (Toml.get(doc, "crio", "network", "network_dir") instanceof String dir && !dir.isBlank()) {
        confDir = trimSlash(dir);
        touched = true;
      }
      if (touched) {
        used.add(file);
      }
    }
    String source =
        used.isEmpty()
            ? String.join(", ", files) + ", no network dirs set, defaults apply"
            : String.join(", ", used);
    return new RuntimeCni("cri-o", source, binDirs, confDir);
  }

  private static Map<String, Object> parse(HostRoot host, String file) throws HostReadException {
    String text = host.read(file);
    try {
      return Toml.parse(text);
    } catch (Toml.TomlException e) {
      throw new HostReadException(file + " is not valid TOML: " + e.getMessage(), false);
    }
  }

  /** containerd imports: absolute or relative to the main config, with globs in the file name. */
  private static List<String> expandImport(HostRoot host, String pattern) throws HostReadException {
    String path = pattern.startsWith("/") ? pattern : "/etc/containerd/" + pattern;
    int slash = path.lastIndexOf('/');
    String dir = slash == 0 ? "/" : path.substring(0, slash);
    String glob = path.substring(slash + 1);
    if (!glob.contains("*") && !glob.contains("?")) {
      return exists(host, path) ? List.of(path) : List.of();
    }
    if (!exists(host, dir)) {
      return List.of();
    }
    Pattern regex = Pattern.compile(globToRegex(glob));
    List<String> out = new ArrayList<>();
    for (String name : host.list(dir)) {
      if (regex.matcher(name).matches()) {
        out.add(dir + "/" + name);
      }
    }
    return out;
  }

  private static String globToRegex(String glob) {
    StringBuilder sb = new StringBuilder();
    for (char c : glob.toCharArray()) {
      switch (c) {
        case '*' -> sb.append("[^/]*");
        case '?' -> sb.append("[^/]");
        default -> sb.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return sb.toString();
  }

  static boolean exists(HostRoot host, String hostPath) throws HostReadException {
    try {
      host.resolve(hostPath);
      return true;
    } catch (HostReadException e) {
      if (e.missing()) {
        return false;
      }
      throw e;
    }
  }

  static String trimSlash(String dir) {
    String d = dir.strip();
    while (d.length() > 1 && d.endsWith("/")) {
      d = d.substring(0, d.length() - 1);
    }
    return d;
  }
}
