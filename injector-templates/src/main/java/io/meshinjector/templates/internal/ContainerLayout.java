package io.meshinjector.templates.internal;

import static io.meshinjector.templates.internal.ModelJson.MAPPER;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where the proxy and the redirect container go among the app's containers, on injection and again
 * once a later mutating webhook has added containers of its own.
 */
public final class ContainerLayout {
  private ContainerLayout() {}

  /** The names of the pod's init containers, then its containers, once ours are in. */
  public static List<String> injectedNames(
      PodSpec spec, String redirectName, String proxyName, boolean nativeSidecar) {
    List<String> inits = names(orEmpty(spec.getInitContainers()));
    List<String> containers = names(orEmpty(spec.getContainers()));
    if (nativeSidecar) {
      // The redirect must be in place before the proxy starts, and both before any app init
      // container, so that those already talk through the mesh.
      inits.addAll(0, List.of(redirectName, proxyName));
    } else {
      // Regular proxy: app init containers run before it exists, so they keep their own network
      // and the redirect comes last; the proxy goes first so its postStart hook holds the app.
      inits.add(redirectName);
      containers.add(0, proxyName);
    }
    List<String> all = new ArrayList<>(inits);
    all.addAll(containers);
    return all;
  }

  /** Adds the redirect and the proxy where {@link #injectedNames} puts them. */
  public static void insert(
      PodPatch patch, RenderedTemplate redirect, RenderedTemplate proxy, boolean nativeSidecar) {
    if (nativeSidecar) {
      patch.insert("initContainers", 0, List.of(redirect.asIs(), proxy.nativeSidecar()));
    } else {
      patch.insert("initContainers", -1, List.of(redirect.asIs()));
      patch.insert("containers", 0, List.of(proxy.regular()));
    }
  }

  /**
   * Moves the containers whose names {@code known} lacks to where the injected layout puts app
   * containers, as operations on {@code patch}.
   *
   * @param received the tree {@code spec} was read from; the lists it moves are its elements
   * @param known the names of the containers and init containers when the pod was injected
   * @return the names of the init containers, then the containers, in their new order; empty when
   *     {@code known} lists every container and nothing moves
   */
  public static Optional<List<String>> complete(
      PodPatch patch, JsonNode received, PodSpec spec, Set<String> known, String proxyName) {
    List<Container> inits = new ArrayList<>(orEmpty(spec.getInitContainers()));
    List<Container> containers = new ArrayList<>(orEmpty(spec.getContainers()));
    if (known.containsAll(names(inits)) && known.containsAll(names(containers))) {
      return Optional.empty();
    }
    int proxyAt = indexOf(inits, proxyName);
    if (proxyAt >= 0) {
      // native sidecar: app init containers start after the redirect and the proxy, so that
      // they already talk through the mesh
      List<Container> early = new ArrayList<>();
      for (Iterator<Container> it = inits.subList(0, proxyAt).iterator(); it.hasNext(); ) {
        Container c = it.next();
        if (c != null && !known.contains(c.getName())) {
          early.add(c);
          it.remove();
        }
      }
      inits.addAll(indexOf(inits, proxyName) + 1, early);
    } else {
      // regular proxy: first among the containers, so its postStart hook holds every app
      // container; and the redirect last among the init containers, after the app's own
      containers.add(0, containers.remove(indexOf(containers, proxyName)));
      int redirectAt = -1;
      for (int i = 0; i < inits.size(); i++) {
        if (inits.get(i) != null && known.contains(inits.get(i).getName())) {
          redirectAt = i;
        }
      }
      if (redirectAt >= 0) {
        List<Container> late = new ArrayList<>(inits.subList(redirectAt + 1, inits.size()));
        inits.subList(redirectAt + 1, inits.size()).clear();
        inits.addAll(redirectAt, late);
      }
    }
    if (!inits.equals(orEmpty(spec.getInitContainers()))) {
      patch.setList("initContainers", reordered(received, "initContainers", spec, inits));
    }
    if (!containers.equals(orEmpty(spec.getContainers()))) {
      patch.setList("containers", reordered(received, "containers", spec, containers));
    }
    List<String> all = names(inits);
    all.addAll(names(containers));
    return Optional.of(all);
  }

  /**
   * The received elements of a list in the new order, found by identity in the typed list they were
   * bound to; serialised where the two do not line up.
   */
  private static List<JsonNode> reordered(
      JsonNode received, String list, PodSpec spec, List<Container> order) {
    List<Container> before =
        orEmpty(list.equals("containers") ? spec.getContainers() : spec.getInitContainers());
    JsonNode elements = received.path("spec").path(list);
    List<JsonNode> out = new ArrayList<>(order.size());
    for (Container c : order) {
      int at = -1;
      for (int i = 0; i < before.size() && at < 0; i++) {
        at = before.get(i) == c ? i : -1;
      }
      boolean aligned = elements.isArray() && elements.size() == before.size() && at >= 0;
      out.add(aligned ? elements.get(at) : MAPPER.valueToTree(c));
    }
    return out;
  }

  private static List<String> names(List<Container> containers) {
    List<String> out = new ArrayList<>(containers.size());
    for (Container c : containers) {
      if (c != null && c.getName() != null) {
        out.add(c.getName());
      }
    }
    return out;
  }

  private static int indexOf(List<Container> containers, String name) {
    for (int i = 0; i < containers.size(); i++) {
      if (containers.get(i) != null && name.equals(containers.get(i).getName())) {
        return i;
      }
    }
    return -1;
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
