package io.meshinjector.webhook.image;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a tar stream entry by entry: ustar headers with GNU long names and POSIX (pax) extended
 * headers, which is what Jib and GNU tar write. Written here rather than taken from a library so
 * the image test depends on nothing that built the image.
 */
final class TarStream {
  private static final int BLOCK = 512;

  /** One entry: its path without a leading "./" or "/" and without a trailing "/". */
  record Entry(String path, char type, int mode, long uid, long gid, long size, String linkTarget) {
    boolean isFile() {
      return type == '0' || type == '\0' || type == '7';
    }

    boolean isDirectory() {
      return type == '5';
    }

    boolean isSymlink() {
      return type == '2';
    }

    boolean isHardLink() {
      return type == '1';
    }
  }

  /** Called for each entry with its body, which it may read (or not) up to {@link Entry#size}. */
  @FunctionalInterface
  interface Visitor {
    void visit(Entry entry, InputStream body) throws IOException;
  }

  private TarStream() {}

  static void read(InputStream in, Visitor visitor) throws IOException {
    byte[] header = new byte[BLOCK];
    String longName = null;
    String longLink = null;
    String paxPath = null;
    String paxLink = null;
    Long paxSize = null;
    while (true) {
      if (!readBlock(in, header)) {
        return; // the stream ended without the end-of-archive blocks: tolerated, as tar does
      }
      if (allZero(header)) {
        return;
      }
      char type = (char) header[156];
      long size = octal(header, 124, 12);
      if (paxSize != null) {
        size = paxSize;
      }
      switch (type) {
        case 'L', 'K' -> {
          String value = cString(readBody(in, size));
          if (type == 'L') {
            longName = value;
          } else {
            longLink = value;
          }
          continue;
        }
        case 'x' -> {
          for (String record : pax(readBody(in, size))) {
            int eq = record.indexOf('=');
            String key = record.substring(0, eq);
            String value = record.substring(eq + 1);
            switch (key) {
              case "path" -> paxPath = value;
              case "linkpath" -> paxLink = value;
              case "size" -> paxSize = Long.parseLong(value);
              default -> {} // times, owners' names, vendor keywords: not needed here
            }
          }
          continue;
        }
        case 'g' -> {
          readBody(in, size); // global defaults: none that matter here
          continue;
        }
        default -> {}
      }
      String name = cString(Arrays.copyOfRange(header, 0, 100));
      String magic = cString(Arrays.copyOfRange(header, 257, 263));
      if (magic.startsWith("ustar")) {
        String prefix = cString(Arrays.copyOfRange(header, 345, 500));
        if (!prefix.isEmpty()) {
          name = prefix + "/" + name;
        }
      }
      if (longName != null) {
        name = longName;
      }
      if (paxPath != null) {
        name = paxPath;
      }
      String link = cString(Arrays.copyOfRange(header, 157, 257));
      if (longLink != null) {
        link = longLink;
      }
      if (paxLink != null) {
        link = paxLink;
      }
      Entry entry =
          new Entry(
              normalize(name),
              type,
              (int) octal(header, 100, 8),
              octal(header, 108, 8),
              octal(header, 116, 8),
              type == '5' || type == '2' || type == '1' ? 0 : size,
              link);
      BoundedStream body = new BoundedStream(in, entry.size());
      visitor.visit(entry, body);
      body.skipRest();
      skipPadding(in, entry.size());
      longName = longLink = paxPath = paxLink = null;
      paxSize = null;
    }
  }

  static String normalize(String name) {
    String n = name;
    while (n.startsWith("./")) {
      n = n.substring(2);
    }
    while (n.startsWith("/")) {
      n = n.substring(1);
    }
    while (n.endsWith("/")) {
      n = n.substring(0, n.length() - 1);
    }
    return n;
  }

  private static byte[] readBody(InputStream in, long size) throws IOException {
    if (size > 1 << 20) {
      throw new IOException("a tar metadata entry of " + size + " bytes");
    }
    byte[] body = in.readNBytes((int) size);
    if (body.length != size) {
      throw new EOFException("tar entry body cut short");
    }
    skipPadding(in, size);
    return body;
  }

  private static void skipPadding(InputStream in, long size) throws IOException {
    skipByReading(in, (BLOCK - size % BLOCK) % BLOCK);
  }

  /** Skips by reading, so a digesting stream underneath sees every byte (skip() bypasses it). */
  private static void skipByReading(InputStream in, long n) throws IOException {
    byte[] buffer = new byte[8192];
    long left = n;
    while (left > 0) {
      int r = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (r < 0) {
        throw new EOFException("tar stream cut short");
      }
      left -= r;
    }
  }

  private static boolean readBlock(InputStream in, byte[] block) throws IOException {
    int n = in.readNBytes(block, 0, BLOCK);
    if (n == 0) {
      return false;
    }
    if (n != BLOCK) {
      throw new EOFException("tar header cut short");
    }
    return true;
  }

  private static boolean allZero(byte[] block) {
    for (byte b : block) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  /** A numeric field: octal digits, or base-256 when its first byte has the high bit set. */
  private static long octal(byte[] header, int offset, int length) {
    if ((header[offset] & 0x80) != 0) {
      long v = header[offset] & 0x7f;
      for (int i = 1; i < length; i++) {
        v = (v << 8) | (header[offset + i] & 0xff);
      }
      return v;
    }
    String s = cString(Arrays.copyOfRange(header, offset, offset + length)).trim();
    return s.isEmpty() ? 0 : Long.parseLong(s, 8);
  }

  private static String cString(byte[] bytes) {
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, 0, end, StandardCharsets.UTF_8);
  }

  /** The records of a pax header: "LENGTH key=value\n", LENGTH counting the whole record. */
  private static java.util.List<String> pax(byte[] body) {
    java.util.List<String> records = new java.util.ArrayList<>();
    int i = 0;
    while (i < body.length && body[i] != 0) {
      int space = i;
      while (body[space] != ' ') {
        space++;
      }
      int length = Integer.parseInt(new String(body, i, space - i, StandardCharsets.US_ASCII));
      records.add(new String(body, space + 1, length - (space - i) - 2, StandardCharsets.UTF_8));
      i += length;
    }
    return records;
  }

  /** An entry's body: at most its size, and the rest skipped once the visitor is done. */
  private static final class BoundedStream extends InputStream {
    private final InputStream in;
    private long left;

    BoundedStream(InputStream in, long size) {
      this.in = in;
      this.left = size;
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = in.read();
      if (b < 0) {
        throw new EOFException("tar entry cut short");
      }
      left--;
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new EOFException("tar entry cut short");
      }
      left -= n;
      return n;
    }

    @Override
    public void close() {
      // the archive's stream stays open for the next entry
    }

    void skipRest() throws IOException {
      skipByReading(in, left);
      left = 0;
    }
  }
}
