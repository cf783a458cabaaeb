package io.meshinjector.engine.probe;

import static io.meshinjector.engine.probe.ProbeFacts.unknown;

import io.meshinjector.engine.capability.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** The {@code iptables-legacy} and {@code iptables-nft} verdicts from the kernel's modules. */
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
}
