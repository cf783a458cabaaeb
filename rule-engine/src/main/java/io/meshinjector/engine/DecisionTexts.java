package io.meshinjector.engine;

import io.meshinjector.engine.config.ConstrainPolicy;
import io.meshinjector.engine.config.RunToCompletion;
import io.meshinjector.engine.decision.PathOption;

/**
 * The sentences a decision gives users, side by side, as Linkerd keeps its report texts in one
 * file: refusal and skip reasons, warnings, and the trace lines that say why a constraint was
 * refused. {@code explain} prints them and admission warnings carry them, so a change here is a
 * change users see. The algorithm ({@link DecisionRun}, {@link NativeSidecarRule}) passes the
 * values; what it lists of the nodes comes from {@link Shortfalls}.
 */
final class DecisionTexts {
  private DecisionTexts() {}

  // --- the constrain rule ---

  /** Why the pod may not be constrained to some of its nodes. */
  private static String whyNot(ConstrainPolicy.WhyNot why) {
    return switch (why) {
      case MIXED_NODES_REJECT -> "policy.mixedNodes is reject";
      case LABELS_NOT_PUBLISHED ->
          "policy.publishLabels is off, so no capability label could pin the pod";
    };
  }

  /** Trace: the path choice, refused for want of a constraint. */
  static String mixedPathsRefusedStep(ConstrainPolicy.WhyNot why) {
    return "mixed node classes refused: " + whyNot(why);
  }

  /** Trace: the run-to-completion rule, refused for want of a constraint. */
  static String mixedNativeRefusedStep(ConstrainPolicy.WhyNot why) {
    return "mixed native-sidecar support refused: " + whyNot(why);
  }

  // --- the node's OS ---

  /** Why a Windows pod is admitted as it is. */
  static String windowsPod(String workload) {
    return workload
        + " sets spec.os.name: windows; the mesh's proxy and init containers are Linux programs,"
        + " so it is admitted without injection";
  }

  /** Why a pod that can land only on Windows nodes is admitted as it is. */
  static String onlyWindowsNodes(String workload, String windows) {
    return "every candidate node of "
        + workload
        + " runs Windows ("
        + windows
        + "); the mesh's proxy and init containers are Linux programs, so it is admitted without"
        + " injection";
  }

  /** Refusal: the pod may land on Windows nodes, and no constraint may keep it off them. */
  static String windowsAmongCandidates(
      String workload, ConstrainPolicy.WhyNot why, String windows) {
    return workload
        + " may land on Windows nodes ("
        + windows
        + "), where the mesh's Linux proxy cannot run, and on Linux nodes; it cannot be constrained"
        + " to the Linux ones ("
        + whyNot(why)
        + "). Fix: give the pod a nodeSelector kubernetes.io/os: linux";
  }

  /** Warning: the pod was constrained to its Linux candidates. */
  static String constrainedToLinux(int kept, int candidates, String windows) {
    return "pod constrained to the "
        + kept
        + " of "
        + candidates
        + " candidate nodes that run Linux; the others run Windows: "
        + windows;
  }

  // --- the redirect path ---

  /** No path works on any candidate; {@code lacks} and {@code fixes} come from Shortfalls. */
  static String noPathAnywhere(String workload, String lacks, String fixes) {
    return "no redirect path works on any candidate node of " + workload + ": " + lacks + fixes;
  }

  /** Paths work on some candidates only, and no constraint may keep the pod there. */
  static String mixedPaths(
      String workload, ConstrainPolicy.WhyNot why, String lacks, String fixes) {
    return "no redirect path works on every candidate node of "
        + workload
        + " ("
        + whyNot(why)
        + "): "
        + lacks
        + fixes;
  }

  /** Warning: the pod was constrained to the {@code kept} candidates where {@code path} works. */
  static String constrainedToPath(int kept, int candidates, PathOption path, String othersLack) {
    return "pod constrained to the "
        + kept
        + " of "
        + candidates
        + " candidate nodes where "
        + path
        + " works; the others lack it: "
        + othersLack;
  }

  // --- native sidecars ---

  /** Warning: the pod asked for a native sidecar and was constrained to the nodes that run one. */
  static String constrainedToNative(String lacks) {
    return "pod constrained to nodes that run native sidecars: " + lacks;
  }

  /**
   * Warning: a pod that runs to completion was constrained to the nodes that run native sidecars.
   */
  static String constrainedForCompletion(String lacks) {
    return "pod constrained to nodes that run native sidecars, as it runs to completion: " + lacks;
  }

  /** The pod asks for a native sidecar, and {@code none} or not every candidate runs one. */
  static String nativeAsked(String askedBy, boolean none, String workload, String lacks) {
    return askedBy
        + ", but "
        + (none ? "no" : "not every")
        + " candidate node of "
        + workload
        + " runs native sidecars (kubelet >= 1.29): "
        + lacks;
  }

  // --- pods that run to completion ---

  /**
   * A pod that runs to completion can have no native sidecar; {@code why} and {@code fix} say what
   * stands in the way (one of the {@code no...} and {@code fix...} texts below).
   */
  static String noNativeSidecar(String workload, String restartPolicy, String why, String fix) {
    return workload
        + " runs to completion (restartPolicy: "
        + restartPolicy
        + "), so its proxy must be a native sidecar to end when the app ends, but "
        + why
        + ". Fix: "
        + fix
        + "; or, where the app stops the proxy itself when it is done, set"
        + " policy.runToCompletion: inject";
  }

  /** Why: the pod's own annotation turns native sidecars off. */
  static String optedOut(String annotation) {
    return "it says " + annotation;
  }

  static String fixOptOut(String annotation) {
    return "remove the annotation " + annotation;
  }

  /**
   * Why: no candidate runs native sidecars, or none that does has a working path ({@code
   * someNative}); {@code withoutPath} names those, after a "; ", or is empty.
   */
  static String noNativeNode(boolean someNative, String nativeLacks, String withoutPath) {
    return (someNative
            ? "no candidate node runs both native sidecars (kubelet >= 1.29) and a"
                + " working redirect path: "
            : "no candidate node runs native sidecars (kubelet >= 1.29): ")
        + nativeLacks
        + withoutPath;
  }

  static String fixNoNativeNode() {
    return "let it run on nodes whose kubelet is 1.29 or later (upgrade these nodes' kubelet,"
        + " or widen the pod's nodeSelector or node affinity)";
  }

  /** Only some candidates run native sidecars, and no constraint may keep the pod on them. */
  static String mixedNativeForCompletion(
      String workload, String restartPolicy, ConstrainPolicy.WhyNot why, String nativeLacks) {
    return workload
        + " runs to completion (restartPolicy: "
        + restartPolicy
        + "), so its proxy must be a native sidecar, but not every candidate node runs"
        + " native sidecars (kubelet >= 1.29) and "
        + whyNot(why)
        + ": "
        + nativeLacks
        + ". Fix: upgrade these nodes' kubelet to 1.29 or later, or keep the pod off them"
        + " (nodeSelector or node affinity), or set policy.mixedNodes: constrain with"
        + " policy.publishLabels: true";
  }

  /** The setting as an operator writes it, e.g. {@code policy.runToCompletion: skip}. */
  static String runToCompletionSetting(RunToCompletion policy) {
    return "policy.runToCompletion: " + policy.id();
  }

  // --- what a policy did instead of refusing ---

  static final String NO_VIABLE_PATH_SKIP = "policy.noViablePath: skip";

  /** Warning: {@code reason} would have refused the pod; {@code setting} admitted it as it was. */
  static String admittedWithoutInjection(String reason, String setting) {
    return reason + "; admitted without injection (" + setting + ")";
  }

  /** Warning: injected with a regular proxy container, which ends only if the app stops it. */
  static String injectedAsContainer(String reason, String setting) {
    return reason
        + "; injected with the proxy as a regular container ("
        + setting
        + "): the pod completes only if the app stops the proxy";
  }
}
