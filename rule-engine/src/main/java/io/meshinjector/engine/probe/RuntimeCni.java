package io.meshinjector.engine.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where the node's container runtime looks for CNI plugins and network configs. After a move from
 * Docker to containerd the plugins can sit in {@code /etc/cni/bin} while containerd reads {@code
 * /opt/cni/bin}, and every sandbox fails (docs/node-probe.md).
 *
 * @param runtime {@code containerd} or {@code cri-o}
 * @param source which config files the dirs came from, or that defaults apply
 * @param binDirs the plugin dirs the runtime searches, in its order
 * @param confDir the network config dir the runtime reads
 */
public record RuntimeCni(String runtime, String source, List<String> binDirs, String confDir) {

  public static final String CONTAINERD_CONFIG = "/etc/containerd/config.toml";
  public static final String CRIO_CONFIG = "/etc/crio/crio.conf";
  public static final String CRIO_DROP_INS = "/etc/crio/crio.conf.d";

  /**
   * The CRI plugin's id by containerd config version: 3 (containerd 2.x), 2, and 1 (where it was
   * plain {@code cri}).
   */
  private static final List<String> CONTAINERD_CRI_PLUGINS =
      List.of("io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri", "cri");

  public RuntimeCni {
    binDirs = List.copyOf(binDirs);
  }

  /** One parsed runtime config file. */
  public record ConfigFile(String path, Map<String, Object> doc) {}

  /** containerd's dirs when it has no config file. */
  public static RuntimeCni containerdDefaults(ProbeOptions options) {
    return new RuntimeCni(
        "containerd",
        "defaults, no " + CONTAINERD_CONFIG,
        List.of(options.defaultCniBinDir()),
        options.defaultCniConfDir());
  }

  /** The same dirs, noting that a CRI-O config is present too but containerd is what runs. */
  public RuntimeCni withCrioAlsoPresent() {
    return new RuntimeCni(
        runtime, source + "; CRI-O config also present, assumed unused", binDirs, confDir);
  }

  /** The import patterns of containerd's main config, in order. */
  public static List<String> containerdImports(Map<String, Object> main) {
    if (RuntimeConfig.get(main, "imports") instanceof List<?> imports) {
      return imports.stream().map(String::valueOf).toList();
    }
    return List.of();
  }

  /**
   * containerd's dirs from its main config followed by its imports: imports are merged over the
   * main file in order, so a later file's cni settings win.
   */
  public static RuntimeCni containerd(ProbeOptions options, List<ConfigFile> files) {
    List<String> binDirs = List.of(options.defaultCniBinDir());
    String confDir = options.defaultCniConfDir();
    List<String> used = new ArrayList<>();
    for (ConfigFile file : files) {
      for (String plugin : CONTAINERD_CRI_PLUGINS) {
        Object cni = RuntimeConfig.get(file.doc(), "plugins", plugin, "cni");
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
        if (touched && !used.contains(file.path())) {
          used.add(file.path());
        }
      }
    }
    String source =
        used.isEmpty()
            ? CONTAINERD_CONFIG + ", no cni dirs set, defaults apply"
            : String.join(", ", used);
    return new RuntimeCni("containerd", source, binDirs, confDir);
  }

  /** CRI-O's dirs from crio.conf and its drop-ins, in the order they apply (lexical). */
  public static RuntimeCni crio(ProbeOptions options, List<ConfigFile> files) {
    List<String> binDirs = List.of(options.defaultCniBinDir());
    String confDir = options.defaultCniConfDir();
    List<String> used = new ArrayList<>();
    for (ConfigFile file : files) {
      Map<String, Object> doc = file.doc();
      boolean touched = false;
      if (RuntimeConfig.get(doc, "crio", "network", "plugin_dirs") instanceof List<?> dirs
          && !dirs.isEmpty()) {
        binDirs = dirs.stream().map(d -> trimSlash(String.valueOf(d))).toList();
        touched = true;
      } else if (RuntimeConfig.get(doc, "crio", "network", "plugin_dir") instanceof String dir
          && !dir.isBlank()) {
        binDirs = List.of(trimSlash(dir));
        touched = true;
      }
      if (RuntimeConfig.get(doc, "crio", "network", "network_dir") instanceof String dir
          && !dir.isBlank()) {
        confDir = trimSlash(dir);
        touched = true;
      }
      if (touched) {
        used.add(file.path());
      }
    }
    String source =
        used.isEmpty()
            ? String.join(", ", files.stream().map(ConfigFile::path).toList())
                + ", no network dirs set, defaults apply"
            : String.join(", ", used);
    return new RuntimeCni("cri-o", source, binDirs, confDir);
  }

  /** Drop-ins that apply: hidden files are skipped. */
  public static boolean isCrioDropIn(String name) {
    return !name.startsWith(".");
  }

  /** A containerd import as a host path: absolute, or relative to the main config's dir. */
  public static String importPath(String pattern) {
    return pattern.startsWith("/") ? pattern : "/etc/containerd/" + pattern;
  }

  /** Whether an import path has a glob in its file name, so its dir must be listed. */
  public static boolean isGlob(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return name.contains("*") || name.contains("?");
  }

  /** The dir an import path's file name sits in. */
  public static String importDir(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }

  /**
   * Whether a file name in {@link #importDir} matches the import path's glob ({@code *} and {@code
   * ?}, as Go's filepath.Match has them). Matched without regexes so a glob with many stars costs
   * at most name length times glob length.
   */
  public static boolean matchesImport(String path, String name) {
    String glob = path.substring(path.lastIndexOf('/') + 1);
    int g = 0;
    int n = 0;
    int star = -1;
    int resume = 0;
    while (n < name.length()) {
      if (g < glob.length() && (glob.charAt(g) == '?' || glob.charAt(g) == name.charAt(n))) {
        g++;
        n++;
      } else if (g < glob.length() && glob.charAt(g) == '*') {
        star = g++;
        resume = n;
      } else if (star >= 0) {
        g = star + 1;
        n = ++resume;
      } else {
        return false;
      }
    }
    while (g < glob.length() && glob.charAt(g) == '*') {
      g++;
    }
    return g == glob.length();
  }

  static String trimSlash(String dir) {
    String d = dir.strip();
    while (d.length() > 1 && d.endsWith("/")) {
      d = d.substring(0, d.length() - 1);
    }
    return d;
  }
}
