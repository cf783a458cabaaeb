package io.meshinjector.engine.rules;

import io.meshinjector.engine.decision.Annotations;

/**
 * The inject setting of one pod or namespace. It may be spelled {@code inject} (the documented key)
 * or {@code mesh-injector.io/inject} (an equivalent alias); when an object carries both and they
 * disagree, {@code disabled} wins, since injecting a pod whose owner also said no is the worse
 * mistake, and the conflict is reported as a warning naming both keys.
 *
 * @param enabled the setting in force
 * @param key the annotation it was read from: one key, or both joined by {@code " and "}
 * @param conflict the warning for two spellings that disagree, or null
 */
public record InjectAnnotation(boolean enabled, String key, String conflict) {

  static InjectAnnotation of(String owner, String bare, String prefixed) {
    if (prefixed == null) {
      return new InjectAnnotation(enabled(bare), Annotations.INJECT, null);
    }
    if (bare == null) {
      return new InjectAnnotation(enabled(prefixed), Annotations.INJECT_PREFIXED, null);
    }
    String both = Annotations.INJECT + " and " + Annotations.INJECT_PREFIXED;
    if (bare.equals(prefixed)) {
      return new InjectAnnotation(enabled(bare), both, null);
    }
    String conflict =
        (owner == null ? "the pod" : owner)
            + " carries both "
            + Annotations.INJECT
            + ": "
            + bare
            + " and "
            + Annotations.INJECT_PREFIXED
            + ": "
            + prefixed
            + "; they disagree, so disabled wins. Keep only "
            + Annotations.INJECT;
    return new InjectAnnotation(false, both, conflict);
  }

  /**
   * Whether a namespace with these annotations asks for injection, under the same rules as the
   * gate: either spelling, and {@code disabled} winning when they disagree.
   */
  public static boolean enabledBy(java.util.Map<String, String> annotations) {
    if (annotations == null) {
      return false;
    }
    return of(
            "the namespace",
            annotations.get(Annotations.INJECT),
            annotations.get(Annotations.INJECT_PREFIXED))
        .enabled();
  }

  private static boolean enabled(String value) {
    return "enabled".equals(value);
  }

  /** For the trace: {@code inject: enabled}, or the keys and the value in force. */
  public String describe() {
    return key + ": " + (enabled ? "enabled" : "disabled");
  }
}
