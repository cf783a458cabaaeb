package io.meshinjector.engine.probe;

import io.meshinjector.engine.capability.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The kernel modules one redirect backend needs, weighed against what the node's files show of the
 * kernel ({@link KernelModules}): each module loaded, built in, or, where the kernel loads it by
 * itself on first use, only in the module tree. A module's own dependencies (nf_nat, nf_conntrack,
 * nf_defrag_ipv6, ...) are not listed: the kernel never has a module without them, loaded or
 * installed alike, since modprobe and depmod bring them along.
 */
final class ModuleNeeds {
  private ModuleNeeds() {}

  /**
   * One module the backend's commands need.
   *
   * @param name the module's name in current kernels
   * @param older the names it had in older kernels, which do the same (e.g. {@code
   *     nft_chain_nat_ipv6} before 5.1 merged it into {@code nft_chain_nat})
   * @param autoloaded whether the kernel loads it on first use (a table, chain type, expression or
   *     target the command asks for); a module userspace must find loaded (the legacy {@code
   *     ip6_tables} socket options, for which only the binary itself would run modprobe, and a
   *     pod's init container cannot) is not
   */
  record Need(String name, List<String> older, boolean autoloaded) {
    Need {
      Objects.requireNonNull(name, "name");
      older = List.copyOf(older);
    }

    static Need autoloaded(String name, String... older) {
      return new Need(name, List.of(older), true);
    }

    static Need mustBeLoaded(String name) {
      return new Need(name, List.of(), false);
    }

    List<String> names() {
      List<String> all = new ArrayList<>();
      all.add(name);
      all.addAll(older);
      return all;
    }

    String label() {
      return older.isEmpty()
          ? name
          : name + " (" + String.join(", ", older) + " before kernel 5.1)";
    }
  }

  /** Where the files put one need. */
  private enum State {
    LOADED,
    BUILTIN,
    AUTOLOADED,
    MISSING,
    UNDETERMINED
  }

  /**
   * The verdict for {@code needs}: available when the files show every one, unavailable when they
   * show one is not there, unknown when one cannot be told.
   *
   * @param backend the command the verdict is about, e.g. {@code ip6tables-legacy}
   * @param tool the name its error gives for a missing must-be-loaded module ({@code ip6tables
   *     who?})
   */
  static ProbeFinding decide(
      KernelModules m, String kernel, String backend, String tool, List<Need> needs) {
    Map<State, List<Need>> by = new LinkedHashMap<>();
    for (Need n : needs) {
      by.computeIfAbsent(state(m, n), s -> new ArrayList<>()).add(n);
    }
    List<Need> missing = by.getOrDefault(State.MISSING, List.of());
    if (!missing.isEmpty()) {
      return new ProbeFinding(Verdict.UNAVAILABLE, missing(m, kernel, backend, tool, missing));
    }
    List<Need> undetermined = by.getOrDefault(State.UNDETERMINED, List.of());
    if (!undetermined.isEmpty()) {
      return ProbeFinding.unknown(undetermined(m, undetermined));
    }
    List<String> parts = new ArrayList<>();
    for (State s : List.of(State.LOADED, State.BUILTIN, State.AUTOLOADED)) {
      List<Need> these = by.getOrDefault(s, List.of());
      if (these.isEmpty()) {
        continue;
      }
      boolean one = these.size() == 1;
      String names =
          these.stream().map(Need::name).collect(Collectors.joining(", "))
              + (one ? " is " : " are ");
      parts.add(
          switch (s) {
            case LOADED -> names + "loaded";
            case BUILTIN -> names + "built into kernel " + kernel;
            default ->
                names
                    + "in the module tree of kernel "
                    + kernel
                    + ", which loads "
                    + (one ? "it" : "them")
                    + " on first use";
          });
    }
    return new ProbeFinding(Verdict.AVAILABLE, String.join("; ", parts));
  }

  private static State state(KernelModules m, Need n) {
    if (n.names().stream().anyMatch(m::isLoaded)) {
      return State.LOADED;
    }
    if (n.names().stream().anyMatch(m::isBuiltin)) {
      return State.BUILTIN;
    }
    if (n.autoloaded() && n.names().stream().anyMatch(m::inTree)) {
      return State.AUTOLOADED;
    }
    boolean known =
        m.loaded() != null && m.builtin() != null && (!n.autoloaded() || m.tree() != null);
    return known ? State.MISSING : State.UNDETERMINED;
  }

  private static String missing(
      KernelModules m, String kernel, String backend, String tool, List<Need> missing) {
    List<String> sentences = new ArrayList<>();
    List<Need> loadable = missing.stream().filter(n -> !n.autoloaded()).toList();
    List<Need> absent = missing.stream().filter(Need::autoloaded).toList();
    if (!loadable.isEmpty()) {
      List<String> names = loadable.stream().map(Need::name).toList();
      StringBuilder why =
          new StringBuilder(String.join(", ", names))
              .append(names.size() == 1 ? " is" : " are")
              .append(" neither loaded nor built into kernel ")
              .append(kernel)
              .append("; a pod's init container cannot load kernel modules (\"")
              .append(tool)
              .append(" who? (do you need to insmod?)\")");
      if (m.tree() != null && loadable.stream().allMatch(n -> inTree(m, n))) {
        why.append("; ")
            .append(names.size() == 1 ? "it is" : "they are")
            .append(" in the module tree, so `modprobe ")
            .append(String.join(" ", names))
            .append("` on the node (or the chart's nodePrep with ")
            .append(names.size() == 1 ? "it" : "them")
            .append(" in nodePrep.extraModules) ")
            .append(absent.isEmpty() ? "makes " + backend + " available" : "loads it");
      } else if (m.tree() != null) {
        List<String> notInTree =
            loadable.stream().filter(n -> !inTree(m, n)).map(Need::name).toList();
        why.append("; ")
            .append(String.join(", ", notInTree))
            .append(notInTree.size() == 1 ? " is" : " are")
            .append(" not in the module tree either");
      }
      sentences.add(why.toString());
    }
    if (!absent.isEmpty()) {
      sentences.add(
          absent.stream().map(Need::label).collect(Collectors.joining(", "))
              + (absent.size() == 1 ? " is" : " are")
              + " neither loaded, built in, nor in the module tree of kernel "
              + kernel);
    }
    return String.join("; ", sentences);
  }

  private static boolean inTree(KernelModules m, Need n) {
    return n.names().stream().anyMatch(m::inTree);
  }

  private static String undetermined(KernelModules m, List<Need> undetermined) {
    List<String> problems = new ArrayList<>();
    if (m.loaded() == null) {
      problems.add(m.loadedProblem());
    }
    if (m.builtin() == null) {
      problems.add(m.builtinProblem());
    }
    if (m.tree() == null && undetermined.stream().anyMatch(Need::autoloaded)) {
      problems.add(m.treeProblem());
    }
    return undetermined.stream().map(Need::label).collect(Collectors.joining(", "))
        + " not found where readable; cannot read: "
        + problems.stream().distinct().collect(Collectors.joining("; "));
  }
}
