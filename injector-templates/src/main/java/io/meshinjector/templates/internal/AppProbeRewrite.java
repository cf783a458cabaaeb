package io.meshinjector.templates.internal;

import static io.meshinjector.templates.internal.ModelJson.MAPPER;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GRPCAction;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HTTPGetActionBuilder;
import io.fabric8.kubernetes.api.model.HTTPHeader;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Lifecycle;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.LifecycleHandlerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.TCPSocketAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Points the app's HTTP, TCP and gRPC probes (and, where configured, HTTP and TCP lifecycle hooks)
 * at the proxy's agent, which runs the original from inside the pod. With strict mTLS the proxy
 * refuses the kubelet's plaintext probe, and the pod never turns Ready. The originals go to the
 * agent as JSON, written as Istio's {@code ISTIO_KUBE_APP_PROBERS} is (pkg/kube/inject/app_probe.go
 * in istio/istio): keys sorted, named ports resolved, a probe already on the agent's port left out.
 * Exec probes are left alone: they run inside the container and never cross the proxy.
 *
 * <p>This is the one place injection changes the app's own containers, as the mesh's own injector
 * does; it is off unless the flavour's config turns it on ({@code proxy.appProbes}).
 */
public final class AppProbeRewrite {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final int port;
  private final String probePath;
  private final String hookPath;
  private final String skip;

  /**
   * @param port the agent's port the probes go to
   * @param skip the proxy's container name, whose own probes stay
   */
  public AppProbeRewrite(int port, String probePath, String hookPath, String skip) {
    this.port = port;
    this.probePath = probePath;
    this.hookPath = hookPath;
    this.skip = skip;
  }

  /**
   * Rewrites the spec's containers and init containers in place (the spec and the changed
   * containers are copies; the others are shared) and returns the originals as JSON, or an empty
   * string when there is none.
   */
  public String apply(PodSpec spec) {
    Map<String, ObjectNode> originals = new TreeMap<>();
    spec.setInitContainers(rewrite(spec.getInitContainers(), originals));
    spec.setContainers(rewrite(spec.getContainers(), originals));
    if (originals.isEmpty()) {
      return "";
    }
    ObjectNode out = F.objectNode();
    originals.forEach(out::set);
    return out.toString();
  }

  /**
   * One operation for each probe or hook {@link #apply} changed, at the container's index in the
   * list as received.
   *
   * @param rewritten the list after {@link #apply}: a new container where it changed one
   */
  public static void patchChanges(
      PodPatch patch, String list, List<Container> original, List<Container> rewritten) {
    if (original == null || rewritten == original) {
      return;
    }
    for (int i = 0; i < original.size(); i++) {
      Container before = original.get(i);
      Container after = rewritten.get(i);
      if (before == after) {
        continue;
      }
      changed(
          patch, list, i, "readinessProbe", before.getReadinessProbe(), after.getReadinessProbe());
      changed(patch, list, i, "livenessProbe", before.getLivenessProbe(), after.getLivenessProbe());
      changed(patch, list, i, "startupProbe", before.getStartupProbe(), after.getStartupProbe());
      changed(patch, list, i, "lifecycle", before.getLifecycle(), after.getLifecycle());
    }
  }

  private static void changed(
      PodPatch patch, String list, int index, String member, Object before, Object after) {
    if (after != null && !after.equals(before)) {
      patch.setInElement(list, index, member, MAPPER.valueToTree(after));
    }
  }

  private List<Container> rewrite(List<Container> containers, Map<String, ObjectNode> originals) {
    if (containers == null) {
      return null;
    }
    List<Container> out = new ArrayList<>(containers.size());
    for (Container c : containers) {
      out.add(c == null || skip.equals(c.getName()) ? c : rewrite(c, originals));
    }
    return out;
  }

  private Container rewrite(Container c, Map<String, ObjectNode> originals) {
    Map<String, Integer> named = new HashMap<>();
    if (c.getPorts() != null) {
      for (ContainerPort p : c.getPorts()) {
        if (p != null && p.getName() != null && !p.getName().isEmpty()) {
          named.put(p.getName(), p.getContainerPort());
        }
      }
    }
    String name = c.getName() == null ? "" : c.getName();
    Container copy = null;
    Probe ready = probe(c.getReadinessProbe(), probeUrl(name, "ready"), named, originals);
    Probe live = probe(c.getLivenessProbe(), probeUrl(name, "live"), named, originals);
    Probe startup = probe(c.getStartupProbe(), probeUrl(name, "startup"), named, originals);
    if (ready != null || live != null || startup != null) {
      copy = new ContainerBuilder(c).build();
      if (ready != null) {
        copy.setReadinessProbe(ready);
      }
      if (live != null) {
        copy.setLivenessProbe(live);
      }
      if (startup != null) {
        copy.setStartupProbe(startup);
      }
    }
    Lifecycle l = c.getLifecycle();
    if (!hookPath.isEmpty() && l != null) {
      LifecycleHandler preStop = hook(l.getPreStop(), hookUrl(name, "prestop"), named, originals);
      LifecycleHandler postStart =
          hook(l.getPostStart(), hookUrl(name, "poststart"), named, originals);
      if (preStop != null || postStart != null) {
        copy = copy == null ? new ContainerBuilder(c).build() : copy;
        if (preStop != null) {
          copy.getLifecycle().setPreStop(preStop);
        }
        if (postStart != null) {
          copy.getLifecycle().setPostStart(postStart);
        }
      }
    }
    return copy == null ? c : copy;
  }

  private String probeUrl(String container, String probe) {
    return probePath.replace("{container}", container).replace("{probe}", probe);
  }

  private String hookUrl(String container, String hook) {
    return hookPath.replace("{container}", container).replace("{hook}", hook);
  }

  /** The rewritten probe, or null when it is not one the agent runs (exec, or none). */
  private Probe probe(
      Probe p, String url, Map<String, Integer> named, Map<String, ObjectNode> originals) {
    if (p == null || (p.getHttpGet() == null && p.getTcpSocket() == null && p.getGrpc() == null)) {
      return null;
    }
    ObjectNode original =
        original(p.getHttpGet(), p.getTcpSocket(), p.getGrpc(), p.getTimeoutSeconds(), named);
    if (original != null) {
      originals.put(url, original);
    }
    Probe out = new ProbeBuilder(p).build();
    out.setHttpGet(agentGet(p.getHttpGet(), url));
    out.setTcpSocket(null);
    out.setGrpc(null);
    return out;
  }

  private LifecycleHandler hook(
      LifecycleHandler h,
      String url,
      Map<String, Integer> named,
      Map<String, ObjectNode> originals) {
    if (h == null || (h.getHttpGet() == null && h.getTcpSocket() == null)) {
      return null;
    }
    ObjectNode original = original(h.getHttpGet(), h.getTcpSocket(), null, null, named);
    if (original != null) {
      originals.put(url, original);
    }
    LifecycleHandler out = new LifecycleHandlerBuilder(h).build();
    out.setHttpGet(agentGet(h.getHttpGet(), url));
    out.setTcpSocket(null);
    return out;
  }

  /** The app's own GET with the agent's path and port (and HTTP: the agent speaks plain HTTP). */
  private HTTPGetAction agentGet(HTTPGetAction app, String url) {
    HTTPGetAction get = app == null ? new HTTPGetAction() : new HTTPGetActionBuilder(app).build();
    get.setPath(url);
    get.setPort(new IntOrString(port));
    if ("HTTPS".equals(get.getScheme())) {
      get.setScheme("HTTP");
    }
    return get;
  }

  /**
   * What the agent runs, or null when it cannot: a named port the container does not have, or a
   * probe already on the agent's own port.
   */
  private ObjectNode original(
      HTTPGetAction http,
      TCPSocketAction tcp,
      GRPCAction grpc,
      Integer timeout,
      Map<String, Integer> named) {
    ObjectNode o = F.objectNode();
    if (http != null) {
      ObjectNode h = o.putObject("httpGet");
      putIfSet(h, "path", http.getPath());
      if (!port(h, http.getPort(), named)) {
        return null;
      }
      putIfSet(h, "host", http.getHost());
      putIfSet(h, "scheme", http.getScheme());
      if (http.getHttpHeaders() != null && !http.getHttpHeaders().isEmpty()) {
        ArrayNode headers = h.putArray("httpHeaders");
        for (HTTPHeader header : http.getHttpHeaders()) {
          headers.addObject().put("name", header.getName()).put("value", header.getValue());
        }
      }
    } else if (tcp != null) {
      ObjectNode t = o.putObject("tcpSocket");
      if (!port(t, tcp.getPort(), named)) {
        return null;
      }
      putIfSet(t, "host", tcp.getHost());
    } else {
      ObjectNode g = o.putObject("grpc");
      g.put("port", grpc.getPort() == null ? 0 : grpc.getPort());
      if (grpc.getService() == null) {
        g.putNull("service");
      } else {
        g.put("service", grpc.getService());
      }
    }
    if (timeout != null && timeout != 0) {
      o.put("timeoutSeconds", timeout);
    }
    return o;
  }

  private boolean port(ObjectNode target, IntOrString p, Map<String, Integer> named) {
    if (p != null && p.getStrVal() != null) {
      Integer resolved = named.get(p.getStrVal());
      if (resolved == null) {
        return false;
      }
      target.put("port", resolved);
      return true;
    }
    int n = p == null || p.getIntVal() == null ? 0 : p.getIntVal();
    if (n == port) {
      return false;
    }
    target.put("port", n);
    return true;
  }

  private static void putIfSet(ObjectNode o, String key, String value) {
    if (value != null && !value.isEmpty()) {
      o.put(key, value);
    }
  }
}
