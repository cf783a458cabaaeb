package io.meshinjector.engine.probe;

import io.meshinjector.engine.capability.CapabilityKey;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The active check of one redirect backend: what the mesh's init container runs (create a nat
 * chain, add a REDIRECT rule, read the table back), run by the probe in a throwaway network
 * namespace, with iptables and ip6tables (legacy and nft) and with nft itself ({@link Backend}).
 * This class holds the scripts and reads their results; running them is the probe's edge.
 *
 * <p>A result is one of: the node did it ({@link Worked}), the node refused with the command's own
 * error ({@link Failed}), or the check could not say ({@link NotRun}: no namespace, missing binary,
 * no privileges, timeout), when the file-based inference decides alone.
 */
public final class ActiveCheck {
  /** The chain the check creates; it lives only in the throwaway namespace. */
  public static final String CHAIN = "MESH_INJECTOR_PROBE";

  /** The proxy's inbound port in Linkerd's layout; any port would do. */
  public static final int PORT = 4143;

  /** The rule as {@code iptables-save} prints it back. */
  public static final String RULE = "-A " + CHAIN + " -p tcp -j REDIRECT --to-ports " + PORT;

  /** Printed first, from inside the namespace: without it the namespace was never made. */
  public static final String IN_NAMESPACE = "mesh-injector: in a new network namespace";

  static final int CREATE_FAILED = 101;
  static final int APPEND_FAILED = 102;
  static final int SAVE_FAILED = 103;
  static final int CHAIN_FAILED = 104;

  /** The {@code inet} table the nft check creates; it lives only in the throwaway namespace. */
  public static final String NFT_TABLE = "mesh_injector_probe";

  /**
   * The nft check's base chain: type nat on the output hook, as the redirect of a pod's outbound
   * traffic needs (priority -100 is dstnat, spelt as a number for nft before 0.9.1).
   */
  public static final String NFT_CHAIN_SPEC = "{ type nat hook output priority -100 ; }";

  /** The rule as the check writes it, and as {@code nft list table} prints it back. */
  public static final String NFT_RULE = "meta l4proto tcp redirect to :" + PORT;

  /**
   * The same rule as nft prints it where {@code /etc/protocols} is missing, as in the probe's image
   * (no netbase): the protocol by its number.
   */
  static final String NFT_RULE_NUMERIC = "meta l4proto 6 redirect to :" + PORT;

  /**
   * The POSIX shell script, run as {@code sh -c SCRIPT sh IPTABLES IPTABLES_SAVE}; an exit status
   * of its own says which step failed, the step's stderr says why.
   */
  public static final String SCRIPT =
      "echo '"
          + IN_NAMESPACE
          + "'\n"
          + "\"$1\" -w 5 -t nat -N "
          + CHAIN
          + " || exit "
          + CREATE_FAILED
          + "\n"
          + "\"$1\" -w 5 -t nat -A "
          + CHAIN
          + " -p tcp -j REDIRECT --to-ports "
          + PORT
          + " || exit "
          + APPEND_FAILED
          + "\n"
          + "\"$2\" -t nat || exit "
          + SAVE_FAILED
          + "\n";

  /**
   * The POSIX shell script for nft, run as {@code sh -c NFT_SCRIPT sh NFT}: an {@code inet} table
   * (both address families in one, as Istio's native nftables mode programs it), a nat base chain
   * in it, a redirect rule, and the table read back; then nft's version, for the reason.
   */
  public static final String NFT_SCRIPT =
      "echo '"
          + IN_NAMESPACE
          + "'\n"
          + "\"$1\" add table inet "
          + NFT_TABLE
          + " || exit "
          + CREATE_FAILED
          + "\n"
          + "\"$1\" add chain inet "
          + NFT_TABLE
          + " "
          + CHAIN
          + " '"
          + NFT_CHAIN_SPEC
          + "' || exit "
          + CHAIN_FAILED
          + "\n"
          + "\"$1\" add rule inet "
          + NFT_TABLE
          + " "
          + CHAIN
          + " "
          + NFT_RULE
          + " || exit "
          + APPEND_FAILED
          + "\n"
          + "\"$1\" list table inet "
          + NFT_TABLE
          + " || exit "
          + SAVE_FAILED
          + "\n"
          + "\"$1\" --version 2>/dev/null\n"
          + "exit 0\n";

  private ActiveCheck() {}

  /**
   * What the check tries, one per capability key: the binaries it runs (as {@code $1}, {@code $2}
   * of its script, in this order) and how their output is read.
   */
  public enum Backend {
    IPTABLES_LEGACY(CapabilityKey.IPTABLES_LEGACY, "iptables-legacy"),
    IPTABLES_NFT(CapabilityKey.IPTABLES_NFT, "iptables-nft"),
    IP6TABLES_LEGACY(CapabilityKey.IP6TABLES_LEGACY, "ip6tables-legacy"),
    IP6TABLES_NFT(CapabilityKey.IP6TABLES_NFT, "ip6tables-nft"),
    NFTABLES(CapabilityKey.NFTABLES, "nft");

    private final CapabilityKey key;
    private final String binary;

    Backend(CapabilityKey key, String binary) {
      this.key = key;
      this.binary = binary;
    }

    public CapabilityKey key() {
      return key;
    }

    /** The command the init container would run, e.g. {@code ip6tables-nft}. */
    public String binary() {
      return binary;
    }

    /** The binaries the script takes as its arguments: iptables and its -save, or nft alone. */
    public List<String> binaries() {
      return this == NFTABLES ? List.of(binary) : List.of(binary, binary + "-save");
    }

    public String script() {
      return this == NFTABLES ? NFT_SCRIPT : SCRIPT;
    }

    /** Reads one run of {@link #script()}; see {@link ActiveCheck#read}. */
    public Result read(int exitStatus, String stdout, String stderr) {
      return this == NFTABLES
          ? readNft(exitStatus, stdout, stderr)
          : ActiveCheck.read(binary, exitStatus, stdout, stderr);
    }
  }

  /** One backend's result. */
  public sealed interface Result permits Worked, Failed, NotRun {
    String text();
  }

  /** The backend created the chain and the rule and read them back. */
  public record Worked(String text) implements Result {
    public Worked {
      Objects.requireNonNull(text, "text");
    }
  }

  /** The backend refused; {@code text} carries the command's own error. */
  public record Failed(String text) implements Result {
    public Failed {
      Objects.requireNonNull(text, "text");
    }
  }

  /** The check could not say anything about the node, and why. */
  public record NotRun(String text) implements Result {
    public NotRun {
      Objects.requireNonNull(text, "text");
    }
  }

  /**
   * Reads one run of {@link #SCRIPT}.
   *
   * @param binary the iptables binary's name, e.g. {@code iptables-legacy}
   * @param exitStatus the exit status of the isolating command (which is the script's, when it ran)
   */
  public static Result read(String binary, int exitStatus, String stdout, String stderr) {
    String err = firstLines(stderr);
    if (!stdout.contains(IN_NAMESPACE)) {
      return noNamespace(binary, exitStatus, err);
    }
    if (exitStatus == 0) {
      if (stdout.lines().map(String::strip).anyMatch(RULE::equals)) {
        String generated = "# Generated by ";
        String version =
            stdout
                .lines()
                .filter(l -> l.startsWith(generated))
                .findFirst()
                .map(l -> " (" + l.substring(generated.length()).replaceFirst(" on .*$", "") + ")")
                .orElse("");
        return new Worked(
            binary
                + " created a nat chain with a REDIRECT rule in a new network namespace and read"
                + " it back"
                + version);
      }
      return new Failed(
          binary + "-save did not print the REDIRECT rule " + binary + " had just added");
    }
    String step =
        switch (exitStatus) {
          case CREATE_FAILED -> binary + " -t nat -N " + CHAIN;
          case APPEND_FAILED -> binary + " -t nat -A " + CHAIN + " ... -j REDIRECT";
          case SAVE_FAILED -> binary + "-save -t nat";
          default -> binary + " (exit status " + exitStatus + ")";
        };
    if (lacksPrivilege(err)) {
      // the probe's own container lacks NET_ADMIN/NET_RAW: that says nothing about the node
      return new NotRun(
          step
              + " was not permitted in the probe's container (it needs NET_ADMIN and NET_RAW): "
              + err);
    }
    return new Failed(step + " failed: " + (err.isEmpty() ? "no error message" : err));
  }

  /** The isolating command (unshare) failed before the script started: nothing was tried. */
  private static Result noNamespace(String binary, int exitStatus, String err) {
    return new NotRun(
        "could not make a network namespace to try "
            + binary
            + " in (exit status "
            + exitStatus
            + (err.isEmpty() ? "" : ": " + err)
            + ")");
  }

  /** Reads one run of {@link #NFT_SCRIPT}, as {@link #read} does for iptables. */
  public static Result readNft(int exitStatus, String stdout, String stderr) {
    String binary = "nft";
    String err = firstLines(stderr);
    if (!stdout.contains(IN_NAMESPACE)) {
      return noNamespace(binary, exitStatus, err);
    }
    String table = "inet " + NFT_TABLE;
    if (exitStatus == 0) {
      if (stdout
          .lines()
          .map(String::strip)
          .anyMatch(l -> l.equals(NFT_RULE) || l.equals(NFT_RULE_NUMERIC))) {
        String version =
            stdout
                .lines()
                .map(String::strip)
                .filter(l -> l.startsWith("nftables v"))
                .findFirst()
                .map(l -> " (" + l + ")")
                .orElse("");
        return new Worked(
            "nft created an inet nat table with a nat chain and a redirect rule in a new network"
                + " namespace and read it back"
                + version);
      }
      return new Failed(
          "nft list table " + table + " did not print the redirect rule nft had just added");
    }
    String step =
        switch (exitStatus) {
          case CREATE_FAILED -> "nft add table " + table;
          case CHAIN_FAILED -> "nft add chain " + table + " " + CHAIN + " " + NFT_CHAIN_SPEC;
          case APPEND_FAILED -> "nft add rule " + table + " " + CHAIN + " " + NFT_RULE;
          case SAVE_FAILED -> "nft list table " + table;
          default -> binary + " (exit status " + exitStatus + ")";
        };
    // nft says EPERM in its own words; without NET_ADMIN in the probe's container that is all it
    // can say, whatever the node's kernel could do
    if (lacksPrivilege(err) || err.toLowerCase(Locale.ROOT).contains("operation not permitted")) {
      return new NotRun(
          step
              + " was not permitted in the probe's container (it needs NET_ADMIN and NET_RAW): "
              + err);
    }
    return new Failed(step + " failed: " + (err.isEmpty() ? "no error message" : err));
  }

  private static boolean lacksPrivilege(String err) {
    String e = err.toLowerCase(Locale.ROOT);
    return e.contains("permission denied (you must be root)")
        || e.contains("operation not permitted (you must be root)");
  }

  /** The error is the command's own words: keep them, on one line, and keep the status short. */
  private static String firstLines(String text) {
    List<String> lines = text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    String joined = String.join(" / ", lines.subList(0, Math.min(3, lines.size())));
    return joined.length() <= 400 ? joined : joined.substring(0, 397) + "...";
  }
}
