package io.meshinjector.engine.probe;

import static io.meshinjector.engine.probe.ProbeFacts.unknown;

import io.meshinjector.engine.capability.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The verdicts of the redirect backends from the kernel's modules: {@code iptables-legacy} and
 * {@code iptables-nft}, their IPv6 twins {@code ip6tables-legacy} and {@code ip6tables-nft}, and
 * {@code nftables} (nft itself, an {@code inet} nat table).
 */
public final class ModuleVerdicts {
  private ModuleVerdicts() {}

  /** The module facts: the relevant ones loaded, built in, only installed, and missing. */
  public static void facts(KernelModules m, Map<String, String> facts) {
    facts.put(
        ProbeFacts.LOADED_MODULES,
        m.loaded() != null ? relevant(m::isLoaded) : unknown(m.loadedProblem()));
    facts.put(
        ProbeFacts.BUILTIN_MODULES,
        m.builtin() != null ? relevant(m::isBuiltin) : unknown(m.builtinProblem()));
    facts.put(
        ProbeFacts.INSTALLED_MODULES,
        m.tree() != null
            ? relevant(n -> m.inTree(n) && !m.isLoaded(n) && !m.isBuiltin(n))
            : unknown(m.treeProblem()));
    List<String> missing = new ArrayList<>();
    for (String mod : List.of(KernelModules.IP_TABLES, KernelModules.IPTABLE_NAT)) {
      if (m.loaded() != null && m.builtin() != null && !m.isLoaded(mod) && !m.isBuiltin(mod)) {
        missing.add(mod);
      }
    }
    String nf = KernelModules.NF_TABLES;
    if (m.loaded() != null
        && m.builtin() != null
        && m.tree() != null
        && !m.isLoaded(nf)
        && !m.isBuiltin(nf)
        && !m.inTree(nf)) {
      missing.add(nf);
    }
    facts.put(ProbeFacts.MISSING_MODULES, String.join(",", missing));
  }

  private static String relevant(Predicate<String> test) {
    return KernelModules.RELEVANT.stream().filter(test).collect(Collectors.joining(","));
  }

  /**
   * The init container's iptables-legacy needs ip_tables and iptable_nat in the running kernel; it
   * cannot load them itself ("iptables who? (do you need to insmod?)").
   */
  public static ProbeFinding legacy(KernelModules m, String kernel) {
    // built in needs no module list: a kernel without loadable modules has none to read
    if (m.isBuiltin(KernelModules.IP_TABLES) && m.isBuiltin(KernelModules.IPTABLE_NAT)) {
      return new ProbeFinding(
          Verdict.AVAILABLE, "ip_tables and iptable_nat are built into kernel " + kernel);
    }
    if (m.loaded() == null) {
      return ProbeFinding.unknown("cannot tell which modules are loaded: " + m.loadedProblem());
    }
    List<String> missing = new ArrayList<>();
    List<String> undetermined = new ArrayList<>();
    for (String mod : List.of(KernelModules.IP_TABLES, KernelModules.IPTABLE_NAT)) {
      if (m.isLoaded(mod) || m.isBuiltin(mod)) {
        continue;
      }
      (m.builtin() == null ? undetermined : missing).add(mod);
    }
    if (!missing.isEmpty()) {
      return new ProbeFinding(Verdict.UNAVAILABLE, notLoaded(m, kernel, missing));
    }
    if (!undetermined.isEmpty()) {
      return ProbeFinding.unknown(
          String.join(", ", undetermined)
              + " not loaded, and whether it is built in cannot be read: "
              + m.builtinProblem());
    }
    return new ProbeFinding(
        Verdict.AVAILABLE,
        "ip_tables and iptable_nat are "
            + (m.isLoaded(KernelModules.IP_TABLES) && m.isLoaded(KernelModules.IPTABLE_NAT)
                ? "loaded"
                : "loaded or built in"));
  }

  private static String notLoaded(KernelModules m, String kernel, List<String> missing) {
    StringBuilder why =
        new StringBuilder(String.join(", ", missing))
            .append(missing.size() == 1 ? " is" : " are")
            .append(" neither loaded nor built into kernel ")
            .append(kernel)
            .append(
                "; a pod's init container cannot load kernel modules (\"iptables who? (do you"
                    + " need to insmod?)\")");
    if (m.tree() != null && missing.stream().allMatch(m::inTree)) {
      why.append("; they are in the module tree, so `modprobe ")
          .append(String.join(" ", missing))
          .append("` on the node (or the chart's nodePrep with mode legacy) makes it available");
    } else if (m.tree() != null) {
      List<String> notInTree = missing.stream().filter(x -> !m.inTree(x)).toList();
      why.append("; ")
          .append(String.join(", ", notInTree))
          .append(notInTree.size() == 1 ? " is" : " are")
          .append(" not in the module tree either: use iptables-nft or the CNI path");
    }
    return why.toString();
  }

  /** nf_tables is autoloaded by the kernel on first use, so being in the module tree suffices. */
  public static ProbeFinding nft(KernelModules m, String kernel) {
    String nf = KernelModules.NF_TABLES;
    if (m.isLoaded(nf)) {
      return new ProbeFinding(Verdict.AVAILABLE, "nf_tables is loaded");
    }
    if (m.isBuiltin(nf)) {
      return new ProbeFinding(Verdict.AVAILABLE, "nf_tables is built into kernel " + kernel);
    }
    if (m.inTree(nf)) {
      return new ProbeFinding(
          Verdict.AVAILABLE,
          "nf_tables is in the module tree of kernel "
              + kernel
              + " and is autoloaded on first use");
    }
    List<String> problems = new ArrayList<>();
    if (m.loaded() == null) {
      problems.add(m.loadedProblem());
    }
    if (m.builtin() == null) {
      problems.add(m.builtinProblem());
    }
    if (m.tree() == null) {
      problems.add(m.treeProblem());
    }
    if (!problems.isEmpty()) {
      return ProbeFinding.unknown(
          "nf_tables not found where readable; cannot read: "
              + problems.stream().distinct().collect(Collectors.joining("; ")));
    }
    return new ProbeFinding(
        Verdict.UNAVAILABLE,
        "nf_tables is neither loaded, built in, nor in the module tree of kernel " + kernel);
  }

  /**
   * ip6tables-legacy's nat table with a REDIRECT rule: {@code ip6_tables} must be loaded or built
   * in, since only the binary itself would modprobe it and a pod's init container cannot; the nat
   * table ({@code ip6table_nat}) and the REDIRECT target ({@code xt_REDIRECT}, which serves both
   * families) the kernel loads itself on first use, once ip6_tables is there.
   */
  public static ProbeFinding ip6Legacy(KernelModules m, String kernel) {
    return ModuleNeeds.decide(
        m,
        kernel,
        "ip6tables-legacy",
        "ip6tables",
        List.of(
            ModuleNeeds.Need.mustBeLoaded(KernelModules.IP6_TABLES),
            ModuleNeeds.Need.autoloaded(KernelModules.IP6TABLE_NAT),
            ModuleNeeds.Need.autoloaded(KernelModules.XT_REDIRECT)));
  }

  /**
   * ip6tables-nft's nat table with a REDIRECT rule: nf_tables, the IPv6 nat chain type ({@code
   * nft_chain_nat}, {@code nft_chain_nat_ipv6} before kernel 5.1), and the REDIRECT target run
   * through {@code nft_compat} ({@code xt_REDIRECT}): all loaded by the kernel on first use.
   */
  public static ProbeFinding ip6Nft(KernelModules m, String kernel) {
    return ModuleNeeds.decide(
        m,
        kernel,
        "ip6tables-nft",
        "ip6tables",
        List.of(
            ModuleNeeds.Need.autoloaded(KernelModules.NF_TABLES),
            ModuleNeeds.Need.autoloaded(KernelModules.NFT_CHAIN_NAT, "nft_chain_nat_ipv6"),
            ModuleNeeds.Need.autoloaded(KernelModules.NFT_COMPAT),
            ModuleNeeds.Need.autoloaded(KernelModules.XT_REDIRECT)));
  }

  /** A kernel's version, the front of its release ({@code 5.15} of {@code 5.15.0-91-generic}). */
  record KernelVersion(int major, int minor) {
    private static final Pattern FRONT = Pattern.compile("^(\\d{1,4})\\.(\\d{1,4})");

    boolean before(KernelVersion other) {
      return major != other.major ? major < other.major : minor < other.minor;
    }

    /** The version a release starts with, or null when it starts with none. */
    static KernelVersion of(String release) {
      if (release == null) {
        return null;
      }
      Matcher v = FRONT.matcher(release);
      return v.find()
          ? new KernelVersion(Integer.parseInt(v.group(1)), Integer.parseInt(v.group(2)))
          : null;
    }
  }

  /** The kernel that brought nat to {@code inet} tables (nft_chain_nat, nft_redir). */
  static final KernelVersion INET_NAT_SINCE = new KernelVersion(5, 2);

  /**
   * nft's own redirect in an {@code inet} nat table: nf_tables, {@code nft_chain_nat} and {@code
   * nft_redir}, loaded by the kernel on first use. Nat in inet tables arrived in kernel 5.2: an
   * older release has it only if its vendor backported it, which its files do not show, so it is
   * unknown there (the active check tells). The per-family {@code nft_chain_nat_ipv4}/{@code _ipv6}
   * of kernels before 5.1 have no inet nat at all.
   */
  public static ProbeFinding nftables(KernelModules m, String kernel) {
    ProbeFinding modules =
        ModuleNeeds.decide(
            m,
            kernel,
            "nft",
            "nft",
            List.of(
                ModuleNeeds.Need.autoloaded(KernelModules.NF_TABLES),
                ModuleNeeds.Need.autoloaded(KernelModules.NFT_CHAIN_NAT),
                ModuleNeeds.Need.autoloaded(KernelModules.NFT_REDIR)));
    if (modules.verdict() == Verdict.UNAVAILABLE) {
      boolean split =
          m.isLoaded("nft_chain_nat_ipv6")
              || m.isBuiltin("nft_chain_nat_ipv6")
              || m.inTree("nft_chain_nat_ipv6");
      return split
          ? new ProbeFinding(
              Verdict.UNAVAILABLE,
              modules.reason()
                  + "; its nft_chain_nat_ipv6 is the per-family nat chain of kernels before 5.1,"
                  + " which have no nat in inet tables")
          : modules;
    }
    if (modules.verdict() != Verdict.AVAILABLE) {
      return modules;
    }
    KernelVersion version = KernelVersion.of(kernel);
    if (version == null) {
      return ProbeFinding.unknown(
          modules.reason()
              + "; but "
              + (kernel == null
                  ? "the kernel release is unknown, so it"
                  : "kernel release " + kernel)
              + " does not say whether it has nat in inet tables (kernel 5.2 and later)");
    }
    if (version.before(INET_NAT_SINCE)) {
      return ProbeFinding.unknown(
          modules.reason()
              + "; but kernel "
              + kernel
              + " is older than 5.2, which brought nat to inet tables: only a vendor backport"
              + " would have it, and the files do not show one (the active check tells)");
    }
    return modules;
  }
}
