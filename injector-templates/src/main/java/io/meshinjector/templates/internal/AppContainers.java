package io.meshinjector.templates.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.List;

/** The app containers as the proxy's environment describes them: their names and ports. */
public final class AppContainers {
  private AppContainers() {}

  /** The app's container names, comma-separated (Istio's ISTIO_META_APP_CONTAINERS). */
  public static String names(PodSpec spec) {
    List<String> names = new ArrayList<>();
    for (Container c : orEmpty(spec.getContainers())) {
      names.add(c.getName());
    }
    return String.join(",", names);
  }

  /**
   * The app containers' ports as a JSON list, one port a line, written as istiod writes {@code
   * ISTIO_META_POD_PORTS}: the fields a port sets, in the API's order.
   */
  public static String ports(PodSpec spec) {
    StringBuilder b = new StringBuilder("[");
    boolean first = true;
    for (Container c : orEmpty(spec.getContainers())) {
      for (ContainerPort p : orEmpty(c.getPorts())) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        if (p.getName() != null && !p.getName().isEmpty()) {
          o.put("name", p.getName());
        }
        if (p.getHostPort() != null && p.getHostPort() != 0) {
          o.put("hostPort", p.getHostPort());
        }
        o.put("containerPort", p.getContainerPort() == null ? 0 : p.getContainerPort());
        if (p.getProtocol() != null && !p.getProtocol().isEmpty()) {
          o.put("protocol", p.getProtocol());
        }
        if (p.getHostIP() != null && !p.getHostIP().isEmpty()) {
          o.put("hostIP", p.getHostIP());
        }
        b.append("\n    ").append(first ? "" : ",").append(o);
        first = false;
      }
    }
    return b.append("\n]").toString();
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
