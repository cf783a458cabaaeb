package io.meshinjector.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A small mutation fuzzer shared by the modules' {@code *FuzzTest}s (this folder is added to each
 * module's test sources by the build). Each target takes real inputs as seeds, mutates them byte by
 * byte and structurally, and checks a property on every input: no uncaught exception, and bounded
 * time and allocation per input. A failing input is written to {@code target/fuzz-findings/}; kept
 * under {@code src/test/resources/fuzz/<target>/}, it is replayed by every run.
 *
 * <p>{@code -Dfuzz.tries=N} sets the inputs per target (default {@value #DEFAULT_TRIES}, the short
 * run of {@code verify}); {@code -Dfuzz.seed=S} replays one run exactly.
 */
public final class Fuzz {
  public static final int DEFAULT_TRIES = 300;

  /** An input the target rejects cleanly is fine; anything it throws else is a finding. */
  @FunctionalInterface
  public interface Property {
    void check(byte[] input) throws Exception;
  }

  /** A structural mutation that knows the input's grammar; may return null to pass. */
  @FunctionalInterface
  public interface Structural {
    byte[] mutate(byte[] input, Random random);
  }

  /**
   * @param perInputMillis the time one input may take; generous, since the first inputs run cold
   *     on a machine shared with the rest of the build
   * @param perInputBytes the heap one input may allocate
   */
  public record Limits(long perInputMillis, long perInputBytes) {
    public static final Limits DEFAULT = new Limits(10_000, 512L * 1024 * 1024);
  }

  private final String target;
  private final List<byte[]> seeds;
  private Structural structural = (in, r) -> null;
  private Limits limits = Limits.DEFAULT;
  private List<String> dictionary = List.of();

  private Fuzz(String target, List<byte[]> seeds) {
    this.target = target;
    this.seeds = List.copyOf(seeds);
  }

  public static Fuzz target(String name, List<byte[]> seeds) {
    assertThat(seeds).as("seeds of " + name).isNotEmpty();
    return new Fuzz(name, seeds);
  }

  public Fuzz structural(Structural s) {
    this.structural = s;
    return this;
  }

  public Fuzz limits(Limits l) {
    this.limits = l;
    return this;
  }

  /** Tokens the byte mutations splice in: the grammar's punctuation and troublemakers. */
  public Fuzz dictionary(List<String> tokens) {
    this.dictionary = List.copyOf(tokens);
    return this;
  }

  public static int tries() {
    return Integer.getInteger("fuzz.tries", DEFAULT_TRIES);
  }

  /** Runs the seeds, the kept regression inputs, then {@link #tries()} mutants; fails on any finding. */
  public void run(Property property) {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    Random random = new Random(seed);
    List<String> findings = new ArrayList<>();
    long start = System.nanoTime();
    int n = 0;
    for (byte[] s : seeds) {
      check(property, s, findings);
      n++;
    }
    for (byte[] kept : regressions(target)) {
      check(property, kept, findings);
      n++;
    }
    // -Dfuzz.tries.<target>=N weighs a run toward the cheap targets
    int tries = Integer.getInteger("fuzz.tries." + target, tries());
    for (int i = 0; i < tries && findings.size() < 5; i++) {
      byte[] input = seeds.get(random.nextInt(seeds.size()));
      int rounds = 1 + random.nextInt(4);
      for (int k = 0; k < rounds; k++) {
        input = mutate(input, random);
      }
      check(property, input, findings);
      n++;
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf(
        "FUZZ target=%s inputs=%d millis=%d findings=%d seed=%d%n",
        target, n, millis, findings.size(), seed);
    assertThat(findings).as("findings of fuzz target " + target + " (seed " + seed + ")").isEmpty();
  }

  private void check(Property property, byte[] input, List<String> findings) {
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    long allocated = threads.getThreadAllocatedBytes(tid);
    long t0 = System.nanoTime();
    Throwable failure = null;
    try {
      property.check(input);
    } catch (Throwable e) {
      failure = e;
    }
    long millis = (System.nanoTime() - t0) / 1_000_000;
    long bytes = threads.getThreadAllocatedBytes(tid) - allocated;
    String problem = null;
    if (failure != null) {
      problem = failure.toString();
    } else if (millis > limits.perInputMillis()) {
      problem = "took " + millis + " ms (limit " + limits.perInputMillis() + ")";
    } else if (bytes > limits.perInputBytes()) {
      problem = "allocated " + bytes + " bytes (limit " + limits.perInputBytes() + ")";
    }
    if (problem != null) {
      Path saved = save(input);
      findings.add(problem + " on " + saved);
      if (failure != null) {
        failure.printStackTrace(System.out);
      }
    }
  }

  byte[] mutate(byte[] in, Random r) {
    int choice = r.nextInt(10);
    if (choice < 3) {
      byte[] out = structural.mutate(in, r);
      if (out != null) {
        return out;
      }
    }
    return bytes(in, r, choice);
  }

  private byte[] bytes(byte[] in, Random r, int choice) {
    if (in.length == 0) {
      return token(r);
    }
    int at = r.nextInt(in.length);
    switch (choice % 7) {
      case 0 -> {
        byte[] out = in.clone();
        out[at] ^= (byte) (1 << r.nextInt(8));
        return out;
      }
      case 1 -> {
        byte[] out = in.clone();
        out[at] = (byte) r.nextInt(256);
        return out;
      }
      case 2 -> {
        int len = Math.min(in.length - at, 1 + r.nextInt(16));
        return concat(slice(in, 0, at), slice(in, at + len, in.length));
      }
      case 3 -> {
        int len = Math.min(in.length - at, 1 + r.nextInt(64));
        byte[] chunk = slice(in, at, at + len);
        return concat(slice(in, 0, at), chunk, chunk, slice(in, at, in.length));
      }
      case 4 -> {
        return concat(slice(in, 0, at), token(r), slice(in, at, in.length));
      }
      case 5 -> {
        byte[] other = seeds.get(r.nextInt(seeds.size()));
        int from = other.length == 0 ? 0 : r.nextInt(other.length);
        return concat(slice(in, 0, at), slice(other, from, other.length));
      }
      default -> {
        return slice(in, 0, at);
      }
    }
  }

  private byte[] token(Random r) {
    List<String> common =
        List.of(
            "\u0000", "\n", "\r\n", "\"", "'", "\\", "{", "}", "[", "]", ":", ",", "=", "#", "-1",
            "1e999999", "99999999999999999999", "\ud83d\ude00", "\\u0000", "\\ud800", "null",
            "true", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "{\"a\":{\"a\":{\"a\":{\"a\":");
    List<String> all = dictionary.isEmpty() || r.nextBoolean() ? common : dictionary;
    String t = all.get(r.nextInt(all.size()));
    if (r.nextInt(20) == 0) {
      t = t.repeat(1 + r.nextInt(2_000));
    }
    return t.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static byte[] slice(byte[] in, int from, int to) {
    byte[] out = new byte[Math.max(0, to - from)];
    System.arraycopy(in, from, out, 0, out.length);
    return out;
  }

  private static byte[] concat(byte[]... parts) {
    int len = 0;
    for (byte[] p : parts) {
      len += p.length;
    }
    byte[] out = new byte[len];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private Path save(byte[] input) {
    try {
      String name = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(input));
      Path file = Path.of("target", "fuzz-findings", target, name.substring(0, 16));
      Files.createDirectories(file.getParent());
      Files.write(file, input);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The kept inputs of a target, from {@code src/test/resources/fuzz/<target>/}. */
  static List<byte[]> regressions(String target) {
    Path dir = Path.of("src", "test", "resources", "fuzz", target);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      List<byte[]> out = new ArrayList<>();
      for (Path f : files.sorted().toList()) {
        out.add(Files.readAllBytes(f));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads a seed file. */
  public static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
