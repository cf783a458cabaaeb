package io.meshinjector.engine;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.config.Mesh;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.Redirect;
import io.meshinjector.engine.decision.RefusalReason;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.rules.PodAnnotations;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The redirect paths a pod may take: the operator's preference, narrowed by the pod's redirect and
 * iptables-mode annotations and by its namespace's Pod Security.
 */
final class PathOptions {
  private static final Set<String> PSA_FORBIDS_NET_ADMIN = Set.of("baseline", "restricted");

  private final List<PathOption> preference;
  private final DecisionLog log;

  /**
   * @param preference {@code policy.preference}
   * @param mesh whose init container renders the path: {@code init/nftables} is left out where it
   *     has no native nftables mode
   */
  PathOptions(List<PathOption> preference, Mesh mesh, DecisionLog log) {
    this.log = log;
    if (mesh.nativeNftables() || !preference.contains(PathOption.INIT_NFTABLES)) {
      this.preference = preference;
    } else {
      List<PathOption> kept = new ArrayList<>(preference);
      kept.remove(PathOption.INIT_NFTABLES);
      this.preference = List.copyOf(kept);
      log.add(
          new TraceStep(
              "options",
              "policy.preference offers init/nftables, which is left out: Linkerd's proxy-init has"
                  + " no native nftables mode"));
    }
  }

  /**
   * The paths the preference and the pod's annotations allow, most preferred first; empty only when
   * the pod asks for a redirect the preference does not offer ({@link #notOffered}).
   */
  List<PathOption> allowed(PodAnnotations asked) {
    // the pod chooses among the operator's paths and never adds one: the init path needs
    // NET_ADMIN, and an annotation must not grant a privilege the operator left out
    List<PathOption> options = new ArrayList<>(preference);
    boolean preferenceHasInit = options.stream().anyMatch(o -> o.redirect() == Redirect.INIT);
    if (asked.iptablesMode() != null && !preferenceHasInit) {
      if (asked.redirect() != Redirect.INIT) {
        log.warn(
            Annotations.IPTABLES_MODE
                + " is ignored: policy.preference "
                + options
                + " offers no init path");
      }
    } else if (asked.iptablesMode() != null) {
      PathOption wanted = new PathOption(Redirect.INIT, asked.iptablesMode());
      int first = firstInit(options);
      options.removeIf(o -> o.redirect() == Redirect.INIT);
      options.add(first, wanted);
      log.add(new TraceStep("annotations", Annotations.IPTABLES_MODE + " asks for " + wanted));
      if (asked.redirect() == Redirect.CNI) {
        log.warn(Annotations.IPTABLES_MODE + " is ignored: the pod asks for the cni path");
      }
    }
    if (asked.redirect() != null) {
      options.removeIf(o -> o.redirect() != asked.redirect());
      log.add(new TraceStep("annotations", Annotations.REDIRECT + " asks for " + asked.redirect()));
    }
    return options;
  }

  /** The refusal of a pod whose redirect annotation asks for a path the preference lacks. */
  Outcome notOffered(PodAnnotations asked) {
    String msg =
        "the pod asks for "
            + Annotations.REDIRECT
            + ": "
            + asked.redirect()
            + ", but policy.preference "
            + preference
            + " does not offer the "
            + asked.redirect()
            + " path; remove the annotation or add "
            + asked.redirect()
            + " to policy.preference";
    log.add(new TraceStep("annotations", msg));
    return new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, msg);
  }

  /**
   * Takes the init path out of {@code options} where the namespace's Pod Security forbids the
   * NET_ADMIN and NET_RAW it needs.
   *
   * @return the refusal when that leaves no path, else empty
   */
  Optional<Outcome> applyPodSecurity(
      List<PathOption> options, Namespace ns, String nsName, PodAnnotations asked) {
    String psa = psaLevel(ns);
    if (psa == null || !PSA_FORBIDS_NET_ADMIN.contains(psa)) {
      return Optional.empty();
    }
    if (options.removeIf(o -> o.redirect() == Redirect.INIT)) {
      log.add(
          new TraceStep(
              "constraints",
              "Pod Security '" + psa + "' forbids NET_ADMIN/NET_RAW: the init path is out"));
    }
    if (options.isEmpty()) {
      String msg = podSecurityRefusal(nsName, psa, asked);
      log.add(new TraceStep("constraints", msg));
      return Optional.of(new Outcome.Refuse(RefusalReason.POD_SECURITY, msg));
    }
    return Optional.empty();
  }

  /**
   * Pod Security left no path: either the pod asks for the init path, or the operator's preference
   * offers nothing but init. The message names whichever it is, and its fix.
   */
  private String podSecurityRefusal(String nsName, String psa, PodAnnotations asked) {
    boolean preferenceHasCni = preference.stream().anyMatch(o -> o.redirect() == Redirect.CNI);
    String head =
        "namespace "
            + nsName
            + " enforces Pod Security '"
            + psa
            + "', which forbids the NET_ADMIN and NET_RAW the init path needs, and ";
    String cniFix = "add cni to policy.preference and install the mesh CNI plugin";
    if (asked.redirect() == Redirect.INIT) {
      return head
          + "the pod asks for "
          + Annotations.REDIRECT
          + ": init; remove the annotation so the pod takes the CNI path"
          + (preferenceHasCni ? " (install the mesh CNI plugin)" : ", and " + cniFix);
    }
    return head + "policy.preference " + preference + " offers no other path; " + cniFix;
  }

  private static int firstInit(List<PathOption> options) {
    for (int i = 0; i < options.size(); i++) {
      if (options.get(i).redirect() == Redirect.INIT) {
        return i;
      }
    }
    return -1;
  }

  private static String psaLevel(Namespace ns) {
    if (ns == null || ns.getMetadata().getLabels() == null) {
      return null;
    }
    return ns.getMetadata().getLabels().get(Annotations.PSA_ENFORCE);
  }
}
