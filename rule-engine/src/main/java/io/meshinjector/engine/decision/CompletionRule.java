package io.meshinjector.engine.decision;

/**
 * How the engine met a run-to-completion pod's need ({@code restartPolicy} {@code Never} or {@code
 * OnFailure}) for a proxy that ends when the app ends, i.e. a native sidecar. The code is the
 * {@code rule} label of {@code mesh_injector_run_to_completion_total}.
 */
public enum CompletionRule {
  /** Every node the pod may run on runs native sidecars: the proxy is one, no constraint needed. */
  NATIVE_SIDECAR("native-sidecar"),
  /** Only some do: the pod is constrained to them on the published native-sidecar label. */
  CONSTRAINED("constrained"),
  /** Only some do, and policy.mixedNodes or policy.publishLabels rule out a constraint: refused. */
  MIXED_NODES("mixed-nodes"),
  /** None does (or the pod disables native sidecars): refused. */
  REFUSED("refused"),
  /** None does: admitted without injection, with a warning. */
  SKIPPED("skipped"),
  /** None does: injected with the proxy as a regular container, with a warning. */
  CONTAINER("container");

  private final String code;

  CompletionRule(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  @Override
  public String toString() {
    return code;
  }
}
