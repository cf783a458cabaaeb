package io.meshinjector.engine.linkerd;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.decision.ConfigOverride;
import io.meshinjector.engine.decision.ConfigOverrides;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Which of Linkerd's configuration annotations apply to a pod, as Linkerd's injector decides: the
 * pod's own, else its namespace's for those a pod inherits; a value Linkerd's injector would ignore
 * (or that would give a pod that cannot start) is ignored here too, with a warning that names the
 * annotation, its value and what it accepts, and the chart's value applies.
 */
public final class LinkerdConfig {
  private LinkerdConfig() {}

  /**
   * @param namespace the pod's namespace, or null when the view has none
   * @param warnings receives one line per value ignored
   */
  public static ConfigOverrides resolve(Pod pod, Namespace namespace, Consumer<String> warnings) {
    Map<String, String> own = annotations(pod.getMetadata().getAnnotations());
    Map<String, String> ns =
        namespace == null || namespace.getMetadata() == null
            ? Map.of()
            : annotations(namespace.getMetadata().getAnnotations());
    String nsName = pod.getMetadata().getNamespace();
    // only opaque ports name container ports; most pods carry none, so no walk over their ports
    String opaque = LinkerdAnnotation.OPAQUE_PORTS.key();
    Map<String, Integer> named =
        own.containsKey(opaque) || ns.containsKey(opaque) ? namedPorts(pod.getSpec()) : Map.of();
    List<ConfigOverride> fromPod = new ArrayList<>();
    List<ConfigOverride> fromNs = new ArrayList<>();
    for (LinkerdAnnotation a : LinkerdAnnotation.values()) {
      String mine = own.get(a.key());
      ConfigOverride podValue = null;
      if (mine != null) {
        podValue = read(a, mine, false, named, "the pod", warnings);
        if (podValue != null) {
          fromPod.add(podValue);
        }
      }
      // the additional env merges the namespace's list under the pod's, by name
      boolean merges = a == LinkerdAnnotation.PROXY_ADDITIONAL_ENV && podValue != null;
      String theirs = ns.get(a.key());
      if (theirs != null && a.inherited() && (mine == null || merges)) {
        ConfigOverride v = read(a, theirs, true, named, "namespace " + nsName, warnings);
        if (v != null) {
          fromNs.add(v);
        }
      }
    }
    List<ConfigOverride> all = new ArrayList<>(fromPod);
    all.addAll(fromNs);
    return new ConfigOverrides(all);
  }

  /**
   * Linkerd's {@code linkerd.io/inject} that keeps the pod out: the pod's own {@code disabled}, or
   * its namespace's when the pod says nothing of injection itself.
   *
   * @param podDecides whether the pod carries an inject annotation of this project's
   * @return the object that opted the pod out ({@code pod}, {@code namespace NAME}), or null
   */
  public static String optedOutBy(Pod pod, Namespace namespace, boolean podDecides) {
    String own = annotations(pod.getMetadata().getAnnotations()).get(LinkerdAnnotation.INJECT);
    if (own != null) {
      return own.trim().equals("disabled") ? "pod" : null;
    }
    if (podDecides || namespace == null || namespace.getMetadata() == null) {
      return null;
    }
    String ns = annotations(namespace.getMetadata().getAnnotations()).get(LinkerdAnnotation.INJECT);
    return ns != null && ns.trim().equals("disabled")
        ? "namespace " + namespace.getMetadata().getName()
        : null;
  }

  /**
   * Why an annotation that applies is not rendered, or null when it is: those whose effect in
   * Linkerd this injector does not give.
   */
  public static String leftOut(String annotation) {
    if (annotation.equals(LinkerdAnnotation.CLOSE_WAIT_TIMEOUT.key())) {
      return "Linkerd applies it only with a root proxy-init (proxyInit.runAsRoot), and this"
          + " injector never runs its init container as root";
    }
    if (annotation.equals(LinkerdAnnotation.POD_INBOUND_PORTS.key())) {
      return "Linkerd's injector sets LINKERD2_PROXY_INBOUND_PORTS from the pod's own ports after"
          + " reading it, so it has no effect there either";
    }
    return null;
  }

  private static ConfigOverride read(
      LinkerdAnnotation a,
      String text,
      boolean fromNamespace,
      Map<String, Integer> named,
      String where,
      Consumer<String> warnings) {
    ValueFormat.Read read = a.format().read(text, named);
    if (read instanceof ValueFormat.Read.Bad bad) {
      warnings.accept(
          "annotation "
              + a.key()
              + " on "
              + where
              + " has invalid value '"
              + shorten(text)
              + "': it accepts "
              + bad.accepts()
              + "; ignored, the injector's configured value applies");
      return null;
    }
    return new ConfigOverride(a.key(), text, ((ValueFormat.Read.Ok) read).value(), fromNamespace);
  }

  private static String shorten(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }

  private static Map<String, String> annotations(Map<String, String> a) {
    return a == null ? Map.of() : a;
  }

  /** The pod's named container ports, init containers first, as Linkerd's GetNamedPorts. */
  private static Map<String, Integer> namedPorts(PodSpec spec) {
    Map<String, Integer> out = new HashMap<>();
    for (ContainerPort p : containerPorts(spec)) {
      if (p.getName() != null) {
        out.put(p.getName(), p.getContainerPort());
      }
    }
    return out;
  }

  /**
   * The ports of the pod's init containers, then its containers, that have a number: where Linkerd
   * looks for named ports and for the default opaque ports a pod exposes.
   */
  public static List<ContainerPort> containerPorts(PodSpec spec) {
    List<ContainerPort> out = new ArrayList<>();
    if (spec == null) {
      return out;
    }
    List<Container> all = new ArrayList<>();
    if (spec.getInitContainers() != null) {
      all.addAll(spec.getInitContainers());
    }
    if (spec.getContainers() != null) {
      all.addAll(spec.getContainers());
    }
    for (Container c : all) {
      if (c == null || c.getPorts() == null) {
        continue;
      }
      for (ContainerPort p : c.getPorts()) {
        if (p != null && p.getContainerPort() != null) {
          out.add(p);
        }
      }
    }
    return out;
  }
}
