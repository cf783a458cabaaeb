package io.meshinjector.webhook.probe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The node's file system as mounted into the probe under a host root (default {@code /host}).
 *
 * <p>Paths are given as the host sees them ({@code /usr/sbin/iptables}). Symbolic links are
 * followed inside the root: the host's absolute link targets ({@code /etc/alternatives/iptables})
 * must not escape into the probe container's own file system, which would report the probe image's
 * iptables instead of the node's.
 */
final class HostRoot {
  private static final int MAX_LINKS = 40;
  private static final long MAX_FILE_BYTES = 32L * 1024 * 1024;

  /**
   * Reads one path's own attributes, not following a final link. A seam for tests: as root, no file
   * mode makes a path unreadable, so tests that must also fail under root deny access here.
   */
  @FunctionalInterface
  interface Attributes {
    BasicFileAttributes read(Path path) throws IOException;
  }

  private static final Attributes FILE_SYSTEM =
      path -> Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);

  private final Path root;
  private final Attributes attributes;

  HostRoot(Path root) {
    this(root, FILE_SYSTEM);
  }

  HostRoot(Path root, Attributes attributes) {
    this.root = root.toAbsolutePath().normalize();
    this.attributes = attributes;
  }

  /**
   * A host path after following every link inside the root.
   *
   * @param hostPath the canonical path on the host, e.g. {@code /usr/sbin/xtables-nft-multi}
   * @param real where that is inside the probe's file system
   * @param hops every link followed, as {@code link -> target}, in order
   * @param attributes what {@code real} is: never a link, since every link has been followed
   */
  record Resolved(String hostPath, Path real, List<String> hops, BasicFileAttributes attributes) {
    String fileName() {
      int slash = hostPath.lastIndexOf('/');
      return hostPath.substring(slash + 1);
    }
  }

  /**
   * Follows {@code hostPath} component by component, re-rooting absolute link targets.
   *
   * @throws HostReadException missing when a component does not exist (including a dangling link);
   *     otherwise (permission denied, a file where a directory should be, a link loop) not missing,
   *     because then the probe cannot tell whether the path is there
   */
  Resolved resolve(String hostPath) throws HostReadException {
    Deque<String> pending = new ArrayDeque<>(components(hostPath));
    List<String> current = new ArrayList<>();
    List<String> hops = new ArrayList<>();
    BasicFileAttributes here = attributesOf(hostPath, current);
    int links = 0;
    while (!pending.isEmpty()) {
      String part = pending.removeFirst();
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        if (!current.isEmpty()) {
          current.remove(current.size() - 1);
        }
        here = attributesOf(hostPath, current);
        continue;
      }
      current.add(part);
      here = attributesOf(hostPath, current);
      if (here.isSymbolicLink()) {
        if (++links > MAX_LINKS) {
          throw new HostReadException(hostPath + ": too many levels of symbolic links", false);
        }
        String target;
        try {
          target = Files.readSymbolicLink(inside(current)).toString();
        } catch (IOException e) {
          throw new HostReadException(describe(join(current), e), false);
        }
        hops.add(join(current) + " -> " + target);
        current.remove(current.size() - 1);
        if (target.startsWith("/")) {
          current.clear();
        }
        List<String> targetParts = components(target);
        for (int i = targetParts.size() - 1; i >= 0; i--) {
          pending.addFirst(targetParts.get(i));
        }
      }
    }
    if (here.isSymbolicLink()) {
      // the last link's target added nothing to walk ("." or "/"): what it names is current
      here = attributesOf(hostPath, current);
    }
    return new Resolved(join(current), inside(current), List.copyOf(hops), here);
  }

  /**
   * The attributes of {@code current} inside the root. Only "no such file" counts as missing: a
   * denied stat (the probe runs as nobody) or a file where a directory should be says nothing about
   * whether the path exists on the node, so it must not read as "does not exist".
   */
  private BasicFileAttributes attributesOf(String hostPath, List<String> current)
      throws HostReadException {
    String at = join(current);
    try {
      return attributes.read(inside(current));
    } catch (NoSuchFileException e) {
      throw new HostReadException(
          at.equals(normalize(hostPath))
              ? at + " does not exist"
              : hostPath + " does not exist (" + at + " is missing)",
          true);
    } catch (IOException e) {
      boolean notADirectory = isNotADirectory(e) && current.size() > 1;
      String problem =
          notADirectory
              ? join(current.subList(0, current.size() - 1)) + " is not a directory"
              : describe(at, e);
      throw new HostReadException(
          at.equals(normalize(hostPath)) && !notADirectory
              ? problem
              : normalize(hostPath) + ": cannot check it, " + problem,
          false);
    }
  }

  /** Reads a host text file (UTF-8; malformed bytes are replaced rather than failing). */
  String read(String hostPath) throws HostReadException {
    return new String(readBytes(hostPath), StandardCharsets.UTF_8);
  }

  /** Reads a host file's bytes (at most {@code MAX_FILE_BYTES}). */
  byte[] readBytes(String hostPath) throws HostReadException {
    Resolved r = resolve(hostPath);
    try {
      if (r.attributes().isDirectory()) {
        throw new HostReadException(hostPath + " is a directory", false);
      }
      if (r.attributes().size() > MAX_FILE_BYTES) {
        throw new HostReadException(
            hostPath + " is larger than " + MAX_FILE_BYTES + " bytes", false);
      }
      return Files.readAllBytes(r.real());
    } catch (IOException e) {
      throw new HostReadException(describe(hostPath, e), e instanceof NoSuchFileException);
    }
  }

  /** Names in a host directory, sorted as libcni and the runtimes sort them (byte order). */
  List<String> list(String hostDir) throws HostReadException {
    Resolved r = resolve(hostDir);
    if (!r.attributes().isDirectory()) {
      throw new HostReadException(hostDir + " is not a directory", false);
    }
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(r.real())) {
      for (Path p : entries) {
        names.add(p.getFileName().toString());
      }
    } catch (IOException e) {
      throw new HostReadException(describe(hostDir, e), false);
    }
    names.sort(null);
    return names;
  }

  /**
   * Whether the host path resolves to a regular file; false when it (or a link on the way) is
   * missing, because for a binary that is what "exit status 127" means.
   */
  boolean isFile(String hostPath) throws HostReadException {
    try {
      return resolve(hostPath).attributes().isRegularFile();
    } catch (HostReadException e) {
      if (e.missing()) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Whether the host path exists; a denied or otherwise unanswerable check is an error, not "no".
   */
  boolean exists(String hostPath) throws HostReadException {
    try {
      resolve(hostPath);
      return true;
    } catch (HostReadException e) {
      if (e.missing()) {
        return false;
      }
      throw e;
    }
  }

  private Path inside(List<String> parts) {
    Path p = root;
    for (String part : parts) {
      p = p.resolve(part);
    }
    return p;
  }

  private static List<String> components(String path) {
    List<String> out = new ArrayList<>();
    for (String part : path.split("/")) {
      if (!part.isEmpty()) {
        out.add(part);
      }
    }
    return out;
  }

  private static String join(List<String> parts) {
    return "/" + String.join("/", parts);
  }

  private static String normalize(String hostPath) {
    return join(components(hostPath));
  }

  private static boolean isNotADirectory(IOException e) {
    return e instanceof FileSystemException fs
        && !(e instanceof AccessDeniedException)
        && "Not a directory".equalsIgnoreCase(fs.getReason());
  }

  static String describe(String hostPath, IOException e) {
    if (e instanceof AccessDeniedException) {
      return hostPath + ": permission denied (run the probe as root or relax the file's mode)";
    }
    if (e instanceof NoSuchFileException) {
      return hostPath + " does not exist";
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      // e.g. ENOTDIR: a component on the way is a file, so the path cannot be looked into
      return hostPath + ": " + fs.getReason().toLowerCase(java.util.Locale.ROOT);
    }
    return hostPath + ": " + e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
