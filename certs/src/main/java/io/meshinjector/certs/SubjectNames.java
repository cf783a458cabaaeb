package io.meshinjector.certs;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.bouncycastle.util.IPAddress;

/**
 * The names a serving certificate is valid for: DNS names and IP addresses, in order, without
 * duplicates. The first DNS name becomes the subject's common name.
 */
public record SubjectNames(List<String> dnsNames, List<String> ipAddresses) {

  private static final Pattern DNS_NAME =
      Pattern.compile(
          "^(\\*\\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$");

  public SubjectNames {
    dnsNames = List.copyOf(new LinkedHashSet<>(dnsNames));
    ipAddresses = canonicalIps(ipAddresses);
    for (String name : dnsNames) {
      if (name.length() > 253 || !DNS_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("not a valid DNS name: '" + name + "'");
      }
    }
  }

  /**
   * Sorts names into DNS names and IP literals. {@code localhost} brings {@code 127.0.0.1} and
   * {@code ::1} along, because a loopback client as often connects by address as by name.
   */
  public static SubjectNames of(Collection<String> names) {
    List<String> dns = new ArrayList<>();
    List<String> ips = new ArrayList<>();
    for (String raw : names) {
      String name = raw.trim();
      if (name.isEmpty()) {
        continue;
      }
      if (isIpLiteral(name)) {
        ips.add(name);
      } else {
        String lower = name.toLowerCase(Locale.ROOT);
        // a trailing dot is the absolute form of the same name, and SANs never carry it
        dns.add(lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower);
        if (lower.equals("localhost")) {
          ips.add("127.0.0.1");
          ips.add("::1");
        }
      }
    }
    return new SubjectNames(dns, ips);
  }

  /**
   * The four names a cluster client may use for a Service, shortest first: {@code svc}, {@code
   * svc.ns}, {@code svc.ns.svc}, {@code svc.ns.svc.cluster.local}.
   */
  public static List<String> serviceNames(String service, String namespace) {
    return serviceNames(service, namespace, "cluster.local");
  }

  public static List<String> serviceNames(String service, String namespace, String clusterDomain) {
    String svc = service + "." + namespace + ".svc";
    return List.of(service, service + "." + namespace, svc, svc + "." + clusterDomain);
  }

  public boolean isEmpty() {
    return dnsNames.isEmpty() && ipAddresses.isEmpty();
  }

  /** All names, DNS first, as a reader would list them. */
  public List<String> all() {
    List<String> all = new ArrayList<>(dnsNames);
    all.addAll(ipAddresses);
    return List.copyOf(all);
  }

  /** The subject CN; X.509 caps it at 64 characters, so a longer first name is not used. */
  public String commonName() {
    return dnsNames.stream()
        .filter(n -> n.length() <= 64 && !n.startsWith("*"))
        .findFirst()
        .orElse("mesh-injector");
  }

  static boolean isIpLiteral(String value) {
    // checked syntactically first: InetAddress would resolve a host name over DNS
    return IPAddress.isValid(value);
  }

  static InetAddress parseIp(String literal) {
    if (!isIpLiteral(literal)) {
      throw new IllegalArgumentException("not an IP address: '" + literal + "'");
    }
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: '" + literal + "'", e);
    }
  }

  private static List<String> canonicalIps(List<String> ips) {
    LinkedHashSet<String> out = new LinkedHashSet<>();
    for (String ip : ips) {
      out.add(parseIp(ip.trim()).getHostAddress());
    }
    return List.copyOf(out);
  }

  @Override
  public String toString() {
    return String.join(",", all());
  }
}
