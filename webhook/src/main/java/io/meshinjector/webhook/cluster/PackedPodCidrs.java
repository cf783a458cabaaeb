package io.meshinjector.webhook.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A node's {@code spec.podCIDR} and {@code spec.podCIDRs} as {@link CompactNodeStore} keeps them in
 * its record of the node. Unlike the rest of what is kept they are each node's own, so no template
 * can share them; kept as text they would cost about 56 bytes per CIDR (a String and its bytes) and
 * a list. Here they are their bytes instead, and read back as the exact text they were:
 *
 * <ul>
 *   <li>{@code null}: no {@code podCIDR} and an empty {@code podCIDRs}, a node whose CNI does not
 *       use the node's range (EKS's VPC CNI), at no cost.
 *   <li>a {@code byte[]}: each CIDR as one byte for its family and prefix length, then the address
 *       up to the prefix, so {@code 10.244.3.0/24} is 4 bytes and {@code fd00:10:244:3::/64} 9; an
 *       IPv4 node's array takes 24 bytes of heap (16 with 8-byte object headers), a dual-stack
 *       node's 32. {@code podCIDR} is not written again when it is the first of {@code podCIDRs},
 *       as the API server always makes it (its v1 conversion sets one from the other); a leading
 *       marker says when one of the two is absent instead.
 *   <li>{@link Text}: anything else, as given. A CIDR is packed only when the bytes format back to
 *       exactly its text (lower-case, shortest, without host bits past the prefix's bytes), which
 *       {@link #pack} checks; the API server accepts other spellings (leading zeros in an IPv4
 *       CIDR, an IPv6 address written out in full, host bits set), and those read back as written.
 * </ul>
 */
final class PackedPodCidrs {
  private PackedPodCidrs() {}

  /**
   * A first byte that is no CIDR's: the one CIDR written is {@code podCIDR}, {@code podCIDRs} is
   * empty (a Node written by hand or by a client that sets the old field alone).
   */
  private static final int ONLY_POD_CIDR = 0xff;

  /** A first byte that is no CIDR's: {@code podCIDR} is absent, the CIDRs are {@code podCIDRs}. */
  private static final int NO_POD_CIDR = 0xfe;

  /** A CIDR's first byte: an IPv6 prefix length as it is (0 to 128), an IPv4 one from here. */
  private static final int IPV4 = 129;

  /** The CIDRs as given, when they cannot be packed. */
  record Text(String podCIDR, List<String> podCIDRs) {}

  /** The node's CIDRs packed, or null when it has none; {@code podCIDRs} is the Node's list. */
  static Object pack(String podCIDR, List<String> podCIDRs) {
    if (podCIDRs == null) {
      return new Text(podCIDR, null);
    }
    if (podCIDR == null && podCIDRs.isEmpty()) {
      return null;
    }
    List<String> written = new ArrayList<>(podCIDRs.size() + 1);
    int marker = -1;
    if (podCIDRs.isEmpty()) {
      marker = ONLY_POD_CIDR;
      written.add(podCIDR);
    } else if (podCIDR == null) {
      marker = NO_POD_CIDR;
      written.addAll(podCIDRs);
    } else if (podCIDR.equals(podCIDRs.get(0))) {
      written.addAll(podCIDRs);
    } else {
      return text(podCIDR, podCIDRs);
    }
    byte[] out = new byte[(marker < 0 ? 0 : 1) + 18 * written.size()];
    int at = 0;
    if (marker >= 0) {
      out[at++] = (byte) marker;
    }
    for (String cidr : written) {
      int end = cidr == null ? -1 : write(cidr, out, at);
      // packed only when the bytes read back as this very text
      if (end < 0 || !cidr.equals(read(out, at, end))) {
        return text(podCIDR, podCIDRs);
      }
      at = end;
    }
    return Arrays.copyOf(out, at);
  }

  static String podCIDR(Object packed) {
    if (packed instanceof Text t) {
      return t.podCIDR();
    }
    if (packed instanceof byte[] b) {
      return (b[0] & 0xff) == NO_POD_CIDR ? null : read(b, start(b), next(b, start(b)));
    }
    return null;
  }

  /** The node's {@code podCIDRs}, in a list of its own (as fabric8's NodeSpec starts one). */
  static List<String> podCIDRs(Object packed) {
    if (packed instanceof Text t) {
      return t.podCIDRs() == null ? null : new ArrayList<>(t.podCIDRs());
    }
    List<String> out = new ArrayList<>(2);
    if (packed instanceof byte[] b && (b[0] & 0xff) != ONLY_POD_CIDR) {
      for (int at = start(b); at < b.length; at = next(b, at)) {
        out.add(read(b, at, next(b, at)));
      }
    }
    return out;
  }

  private static Text text(String podCIDR, List<String> podCIDRs) {
    return new Text(podCIDR, Collections.unmodifiableList(new ArrayList<>(podCIDRs)));
  }

  private static int start(byte[] b) {
    int first = b[0] & 0xff;
    return first == ONLY_POD_CIDR || first == NO_POD_CIDR ? 1 : 0;
  }

  /** Where the CIDR that starts at {@code at} ends. */
  private static int next(byte[] b, int at) {
    int tag = b[at] & 0xff;
    int prefix = tag >= IPV4 ? tag - IPV4 : tag;
    return at + 1 + (prefix + 7) / 8;
  }

  /**
   * Writes the CIDR at {@code at}: its tag, then its address up to the prefix's last byte. Returns
   * where it ends, or -1 when it is no CIDR this can write (bytes past the prefix's that are not
   * zero, or text that is no IPv4 or IPv6 CIDR).
   */
  private static int write(String cidr, byte[] out, int at) {
    int slash = cidr.indexOf('/');
    if (slash < 0) {
      return -1;
    }
    boolean v6 = cidr.indexOf(':') >= 0;
    byte[] address = v6 ? ipv6(cidr, slash) : ipv4(cidr, slash);
    int prefix = number(cidr, slash + 1, cidr.length(), v6 ? 128 : 32);
    if (address == null || prefix < 0) {
      return -1;
    }
    int kept = (prefix + 7) / 8;
    for (int i = kept; i < address.length; i++) {
      if (address[i] != 0) {
        return -1;
      }
    }
    out[at] = (byte) (v6 ? prefix : IPV4 + prefix);
    System.arraycopy(address, 0, out, at + 1, kept);
    return at + 1 + kept;
  }

  /** The CIDR written from {@code at} to {@code end}, as text. */
  private static String read(byte[] b, int at, int end) {
    int tag = b[at] & 0xff;
    boolean v4 = tag >= IPV4;
    int prefix = v4 ? tag - IPV4 : tag;
    byte[] address = new byte[v4 ? 4 : 16];
    System.arraycopy(b, at + 1, address, 0, end - at - 1);
    StringBuilder s = new StringBuilder(v4 ? 18 : 43);
    if (v4) {
      for (int i = 0; i < 4; i++) {
        s.append(i == 0 ? "" : ".").append(address[i] & 0xff);
      }
    } else {
      ipv6(address, s);
    }
    return s.append('/').append(prefix).toString();
  }

  /**
   * RFC 5952's text, as Go's {@code net.IP.String} writes it: groups in lower-case hex without
   * leading zeros, the longest run of two or more zero groups (the first of equal runs) as "::".
   */
  private static void ipv6(byte[] a, StringBuilder s) {
    int[] group = new int[8];
    for (int i = 0; i < 8; i++) {
      group[i] = (a[2 * i] & 0xff) << 8 | (a[2 * i + 1] & 0xff);
    }
    int runStart = -1;
    int runLength = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && group[j] == 0) {
        j++;
      }
      if (j - i > runLength) {
        runStart = i;
        runLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    for (int i = 0; i < 8; i++) {
      if (i == runStart) {
        s.append("::");
        i += runLength - 1;
        continue;
      }
      if (i > 0 && i != runStart + runLength) {
        s.append(':');
      }
      s.append(Integer.toHexString(group[i]));
    }
  }

  /** Dotted decimal before {@code end}, or null; any spelling, {@link #pack} checks the text. */
  private static byte[] ipv4(String s, int end) {
    byte[] out = new byte[4];
    int from = 0;
    for (int i = 0; i < 4; i++) {
      int dot = i < 3 ? s.indexOf('.', from) : end;
      if (dot < 0 || dot > end) {
        return null;
      }
      int value = number(s, from, dot, 255);
      if (value < 0) {
        return null;
      }
      out[i] = (byte) value;
      from = dot + 1;
    }
    return out;
  }

  /** Colon-separated hex groups before {@code end}, one "::" at most, or null. */
  private static byte[] ipv6(String s, int end) {
    String text = s.substring(0, end);
    int gap = text.indexOf("::");
    if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    int[] head = groups(gap < 0 ? text : text.substring(0, gap));
    int[] tail = gap < 0 ? new int[0] : groups(text.substring(gap + 2));
    if (head == null
        || tail == null
        || (gap < 0 ? head.length != 8 : head.length + tail.length > 7)) {
      return null;
    }
    byte[] out = new byte[16];
    for (int i = 0; i < head.length; i++) {
      out[2 * i] = (byte) (head[i] >> 8);
      out[2 * i + 1] = (byte) head[i];
    }
    for (int i = 0; i < tail.length; i++) {
      int g = 8 - tail.length + i;
      out[2 * g] = (byte) (tail[i] >> 8);
      out[2 * g + 1] = (byte) tail[i];
    }
    return out;
  }

  private static int[] groups(String text) {
    if (text.isEmpty()) {
      return new int[0];
    }
    String[] parts = text.split(":", -1);
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].isEmpty() || parts[i].length() > 4) {
        return null;
      }
      try {
        out[i] = Integer.parseInt(parts[i], 16);
      } catch (NumberFormatException e) {
        return null;
      }
      if (out[i] < 0) {
        return null;
      }
    }
    return out;
  }

  /** The decimal digits from {@code from} to {@code to}, at most {@code max}, or -1. */
  private static int number(String s, int from, int to, int max) {
    if (to <= from || to - from > 3) {
      return -1;
    }
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value <= max ? value : -1;
  }
}
