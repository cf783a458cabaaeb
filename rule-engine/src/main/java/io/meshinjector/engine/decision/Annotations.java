package io.meshinjector.engine.decision;

/** The public annotations: the pod and namespace annotations the README lists. */
public final class Annotations {
  public static final String PREFIX = "mesh-injector.io/";

  /**
   * On a namespace or a pod: {@code enabled} / {@code disabled}; the pod's wins. The documented
   * key, the one users were promised ({@code kubectl annotate ns shop inject=enabled}).
   */
  public static final String INJECT = "inject";

  /**
   * The same setting under this project's prefix, read as an equivalent of {@link #INJECT}. When
   * both sit on one object and disagree, {@code disabled} wins, with a warning.
   */
  public static final String INJECT_PREFIXED = PREFIX + "inject";

  public static final String REDIRECT = PREFIX + "redirect";
  public static final String IPTABLES_MODE = PREFIX + "iptables-mode";
  public static final String NATIVE_SIDECAR = PREFIX + "native-sidecar";
  public static final String PROXY_AWAIT = PREFIX + "proxy-await";

  /** Written on the injected pod: the decision's one-line summary. */
  public static final String DECISION = PREFIX + "decision";

  /**
   * Written on the injected pod: a digest of the release's injection config (templates and values,
   * not the decision), so that {@code check} can name the pods injected with another config.
   */
  public static final String CONFIG_DIGEST = PREFIX + "config-digest";

  /**
   * Written on the injected pod by the flavours whose mesh records no proxy version of its own
   * (Istio); the Linkerd flavour writes Linkerd's {@code linkerd.io/proxy-version}.
   */
  public static final String PROXY_VERSION = PREFIX + "proxy-version";

  /** Linkerd's record of the proxy version on an injected pod. */
  public static final String LINKERD_PROXY_VERSION = "linkerd.io/proxy-version";

  /** Pod Security admission's enforce level label on a namespace. */
  public static final String PSA_ENFORCE = "pod-security.kubernetes.io/enforce";

  private Annotations() {}
}
