package io.meshinjector.templates.internal;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The pod's inbound ports for {@code LINKERD2_PROXY_INBOUND_PORTS}: every declared container port
 * and every probe port, named ports resolved in their own container, sorted.
 */
public final class InboundPorts {
  private InboundPorts() {}

  /** Comma-separated and sorted; empty when the pod declares none. */
  public static String of(PodSpec spec) {
    TreeSet<Integer> ports = new TreeSet<>();
    for (Container c : orEmpty(spec.getContainers())) {
      add(c, ports);
    }
    // Native sidecars serve traffic like containers do; plain init containers are gone by then.
    for (Container c : orEmpty(spec.getInitContainers())) {
      if ("Always".equals(c.getRestartPolicy())) {
        add(c, ports);
      }
    }
    return ports.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  private static void add(Container c, TreeSet<Integer> ports) {
    for (ContainerPort p : orEmpty(c.getPorts())) {
      if (p.getContainerPort() != null && isTcp(p)) {
        ports.add(p.getContainerPort());
      }
    }
    probe(c, c.getLivenessProbe(), ports);
    probe(c, c.getReadinessProbe(), ports);
    probe(c, c.getStartupProbe(), ports);
  }

  private static boolean isTcp(ContainerPort p) {
    return p.getProtocol() == null || p.getProtocol().isEmpty() || "TCP".equals(p.getProtocol());
  }

  private static void probe(Container c, Probe probe, TreeSet<Integer> ports) {
    if (probe == null) {
      return;
    }
    if (probe.getHttpGet() != null) {
      port(c, probe.getHttpGet().getPort(), ports);
    }
    if (probe.getTcpSocket() != null) {
      port(c, probe.getTcpSocket().getPort(), ports);
    }
    if (probe.getGrpc() != null && probe.getGrpc().getPort() != null) {
      ports.add(probe.getGrpc().getPort());
    }
  }

  private static void port(Container c, IntOrString port, TreeSet<Integer> ports) {
    if (port == null) {
      return;
    }
    if (port.getIntVal() != null) {
      ports.add(port.getIntVal());
      return;
    }
    String name = port.getStrVal();
    if (name == null) {
      return;
    }
    for (ContainerPort p : orEmpty(c.getPorts())) {
      if (name.equals(p.getName()) && p.getContainerPort() != null) {
        ports.add(p.getContainerPort());
        return;
      }
    }
    // A numeric port written as a string is still a port.
    try {
      ports.add(Integer.parseInt(name));
    } catch (NumberFormatException ignored) {
      // an unresolvable name: the API server refuses such a probe anyway
    }
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
