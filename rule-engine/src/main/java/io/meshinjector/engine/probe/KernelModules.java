package io.meshinjector.engine.probe;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which kernel modules the node has loaded, built in, or merely installed in its module tree. Each
 * source can fail on its own; a null set comes with the reason it is missing.
 *
 * <p>The host files are {@code /proc/modules} and, for the running kernel release, {@code
 * /lib/modules/<release>/modules.builtin} and {@code modules.dep}; the probe's edge reads them.
 */
public record KernelModules(
    Set<String> loaded,
    String loadedProblem,
    Set<String> builtin,
    String builtinProblem,
    Set<String> tree,
    String treeProblem) {

  public static final String IP_TABLES = "ip_tables";
  public static final String IPTABLE_NAT = "iptable_nat";
  public static final String NF_TABLES = "nf_tables";
  public static final String IP6_TABLES = "ip6_tables";
  public static final String IP6TABLE_NAT = "ip6table_nat";
  public static final String NFT_CHAIN_NAT = "nft_chain_nat";
  public static final String NFT_COMPAT = "nft_compat";
  public static final String NFT_REDIR = "nft_redir";
  public static final String XT_REDIRECT = "xt_REDIRECT";

  /** The modules worth naming in facts; the full loaded list runs to hundreds of entries. */
  public static final List<String> RELEVANT =
      List.of(
          "x_tables",
          IP_TABLES,
          "iptable_filter",
          IPTABLE_NAT,
          "iptable_mangle",
          IP6_TABLES,
          IP6TABLE_NAT,
          NF_TABLES,
          NFT_CHAIN_NAT,
          "nft_chain_nat_ipv4",
          "nft_chain_nat_ipv6",
          NFT_COMPAT,
          NFT_REDIR,
          "nf_nat",
          "nf_nat_ipv6",
          "nf_conntrack",
          "nf_defrag_ipv6",
          "xt_nat",
          "xt_REDIRECT",
          "xt_owner",
          "xt_conntrack",
          "xt_multiport",
          "xt_tcpudp",
          "br_netfilter");

  /**
   * When the kernel release is unknown, the release's module dir cannot be found: only the loaded
   * modules count.
   */
  public static KernelModules withoutRelease(
      Set<String> loaded, String loadedProblem, String kernelProblem) {
    String problem = "kernel release unknown (" + kernelProblem + ")";
    return new KernelModules(loaded, loadedProblem, null, problem, null, problem);
  }

  /** {@code name size refcount deps state offset}, one module a line. */
  public static Set<String> parseProcModules(String text) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : text.split("\n")) {
      String t = line.strip();
      if (!t.isEmpty()) {
        out.add(normalize(t.split("\\s+", 2)[0]));
      }
    }
    return out;
  }

  /**
   * {@code modules.builtin} (one path a line) and {@code modules.dep} ({@code path: deps}): the
   * module name is the file name without {@code .ko} and any compression suffix.
   */
  public static Set<String> parseModuleList(String text) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : text.split("\n")) {
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      int colon = t.indexOf(':');
      String path = colon >= 0 ? t.substring(0, colon) : t;
      String file = path.substring(path.lastIndexOf('/') + 1);
      int ko = file.indexOf(".ko");
      out.add(normalize(ko >= 0 ? file.substring(0, ko) : file));
    }
    return out;
  }

  /** The kernel config options that build each relevant module, as in the kernel's Kconfig. */
  static final Map<String, String> CONFIG_OPTIONS =
      Map.ofEntries(
          Map.entry("CONFIG_NETFILTER_XTABLES", "x_tables"),
          Map.entry("CONFIG_IP_NF_IPTABLES", IP_TABLES),
          Map.entry("CONFIG_IP_NF_FILTER", "iptable_filter"),
          Map.entry("CONFIG_IP_NF_NAT", IPTABLE_NAT),
          Map.entry("CONFIG_IP_NF_MANGLE", "iptable_mangle"),
          Map.entry("CONFIG_IP6_NF_IPTABLES", "ip6_tables"),
          Map.entry("CONFIG_IP6_NF_NAT", "ip6table_nat"),
          Map.entry("CONFIG_NF_TABLES", NF_TABLES),
          Map.entry("CONFIG_NFT_NAT", "nft_chain_nat"),
          Map.entry("CONFIG_NFT_CHAIN_NAT_IPV4", "nft_chain_nat_ipv4"),
          Map.entry("CONFIG_NFT_CHAIN_NAT_IPV6", "nft_chain_nat_ipv6"),
          Map.entry("CONFIG_NFT_COMPAT", "nft_compat"),
          Map.entry("CONFIG_NFT_REDIR", "nft_redir"),
          Map.entry("CONFIG_NF_NAT", "nf_nat"),
          Map.entry("CONFIG_NF_NAT_IPV6", "nf_nat_ipv6"),
          Map.entry("CONFIG_NF_CONNTRACK", "nf_conntrack"),
          Map.entry("CONFIG_NF_DEFRAG_IPV6", "nf_defrag_ipv6"),
          Map.entry("CONFIG_NETFILTER_XT_NAT", "xt_nat"),
          Map.entry("CONFIG_NETFILTER_XT_TARGET_REDIRECT", "xt_REDIRECT"),
          Map.entry("CONFIG_NETFILTER_XT_MATCH_OWNER", "xt_owner"),
          Map.entry("CONFIG_NETFILTER_XT_MATCH_CONNTRACK", "xt_conntrack"),
          Map.entry("CONFIG_NETFILTER_XT_MATCH_MULTIPORT", "xt_multiport"),
          Map.entry("CONFIG_BRIDGE_NETFILTER", "br_netfilter"));

  /**
   * The relevant modules built into the kernel ({@code =y}) by its own config, {@code
   * /proc/config.gz} (CONFIG_IKCONFIG_PROC), unpacked: what a kernel without loadable modules, and
   * so without {@code /proc/modules} or a module tree, still says about its netfilter. {@code
   * xt_tcpudp} is part of x_tables itself.
   */
  public static Set<String> parseKernelConfig(String text) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : text.split("\n")) {
      String t = line.strip();
      int eq = t.indexOf('=');
      if (t.startsWith("#") || eq < 0 || !t.substring(eq + 1).equals("y")) {
        continue;
      }
      String module = CONFIG_OPTIONS.get(t.substring(0, eq));
      if (module != null) {
        out.add(normalize(module));
      }
    }
    if (out.contains("x_tables")) {
      out.add("xt_tcpudp");
    }
    return out;
  }

  /** The kernel treats {@code -} and {@code _} in module names alike; files use either. */
  public static String normalize(String name) {
    return name.replace('-', '_');
  }

  public boolean isLoaded(String module) {
    return loaded != null && loaded.contains(module);
  }

  public boolean isBuiltin(String module) {
    return builtin != null && builtin.contains(module);
  }

  public boolean inTree(String module) {
    return tree != null && tree.contains(module);
  }
}
