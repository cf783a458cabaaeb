package io.meshinjector.webhook.probe;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.probe.ActiveCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the active check for every redirect backend ({@link ActiveCheck.Backend}): iptables-legacy
 * and iptables-nft ({@link ActiveCheck#SCRIPT}), their IPv6 twins ip6tables-legacy and
 * ip6tables-nft (the same script), and nft with an {@code inet} nat table ({@link
 * ActiveCheck#NFT_SCRIPT}). Each runs in its own new network namespace, made by {@code unshare
 * --net}, so the rules it creates vanish with the namespace and the host's own rules are never read
 * or written. The binaries are the probe image's own, from the same Debian packages ({@code
 * iptables}, {@code nftables}) the mesh's init container images carry.
 *
 * <p>Never throws: a check that cannot run is {@link ActiveCheck.NotRun} with the reason, and the
 * node's files decide alone.
 */
public final class ActiveIptablesCheck {
  /**
   * Where Debian's iptables and nftables packages put their binaries, in the image and on hosts.
   */
  public static final Path DEFAULT_BIN_DIR = Path.of("/usr/sbin");

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

  /** A new network namespace with only loopback in it; the script runs as its child. */
  static final List<String> UNSHARE_NET = List.of("unshare", "--net", "--");

  private final List<String> isolate;
  private final Path binDir;
  private final Duration timeout;

  public ActiveIptablesCheck(Path binDir, Duration timeout) {
    this(UNSHARE_NET, binDir, timeout);
  }

  /**
   * @param isolate the command that runs the rest of its arguments in a new network namespace
   */
  ActiveIptablesCheck(List<String> isolate, Path binDir, Duration timeout) {
    this.isolate = List.copyOf(isolate);
    this.binDir = Objects.requireNonNull(binDir, "binDir");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("active check timeout must be positive, not " + timeout);
    }
  }

  /** Every backend, one after the other, in {@link ActiveCheck.Backend}'s order. */
  public Map<CapabilityKey, ActiveCheck.Result> run() {
    Map<CapabilityKey, ActiveCheck.Result> out = new EnumMap<>(CapabilityKey.class);
    for (ActiveCheck.Backend backend : ActiveCheck.Backend.values()) {
      out.put(backend.key(), run(backend));
    }
    return out;
  }

  ActiveCheck.Result run(ActiveCheck.Backend backend) {
    List<String> binaries = new ArrayList<>();
    for (String name : backend.binaries()) {
      Path p = binDir.resolve(name);
      if (!Files.isExecutable(p)) {
        return new ActiveCheck.NotRun(p + " is not in the probe's image");
      }
      binaries.add(p.toString());
    }
    Path work = null;
    try {
      work = Files.createTempDirectory("mesh-injector-active-");
      return run(backend, binaries, work);
    } catch (IOException e) {
      return new ActiveCheck.NotRun("could not run " + backend.binary() + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new ActiveCheck.NotRun("interrupted while running " + backend.binary());
    } finally {
      deleteQuietly(work);
    }
  }

  private ActiveCheck.Result run(ActiveCheck.Backend backend, List<String> binaries, Path work)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(isolate);
    command.addAll(List.of("/bin/sh", "-c", backend.script(), "sh"));
    command.addAll(binaries);
    Path out = work.resolve("stdout");
    Path err = work.resolve("stderr");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    // only what iptables reads: its lock file in the probe's writable /tmp (the root file system
    // is read-only), and a PATH for unshare and sh; nft needs neither
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env.put("XTABLES_LOCKFILE", work.resolve("xtables.lock").toString());
    env.put("LC_ALL", "C");
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      return new ActiveCheck.NotRun(
          "could not start " + command.get(0) + " for the network namespace: " + e.getMessage());
    }
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(5, TimeUnit.SECONDS);
      return new ActiveCheck.NotRun(
          backend.binary() + " did not finish within " + timeout.toSeconds() + "s");
    }
    return backend.read(p.exitValue(), read(out), read(err));
  }

  private static String read(Path file) throws IOException {
    // the save output of a fresh namespace is a few hundred bytes; a runaway binary is cut short
    byte[] bytes = Files.readAllBytes(file);
    int n = Math.min(bytes.length, 64 * 1024);
    return new String(bytes, 0, n, StandardCharsets.UTF_8);
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temp dir left in the probe's emptyDir is harmless
    }
  }
}
