package io.meshinjector.engine.rules;

import io.meshinjector.engine.config.Mesh;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.engine.decision.Redirect;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pod's {@code mesh-injector.io/*} choices, validated. Annotations only narrow the engine's
 * choice; they never change images, commands or privileges.
 *
 * @param redirect null for {@code auto}
 * @param iptablesMode null for {@code auto}
 * @param nativeSidecar null for {@code auto}, else enabled/disabled
 * @param nativeSidecarBy the annotation and value that set {@code nativeSidecar}, for messages
 */
public record PodAnnotations(
    Redirect redirect,
    IptablesMode iptablesMode,
    Boolean nativeSidecar,
    boolean proxyAwait,
    String nativeSidecarBy) {

  public PodAnnotations(
      Redirect redirect, IptablesMode iptablesMode, Boolean nativeSidecar, boolean proxyAwait) {
    this(
        redirect,
        iptablesMode,
        nativeSidecar,
        proxyAwait,
        nativeSidecar == null
            ? null
            : Annotations.NATIVE_SIDECAR + ": " + (nativeSidecar ? "enabled" : "disabled"));
  }

  /** Thrown for an invalid value; the message names the annotation and the allowed values. */
  public static final class InvalidAnnotation extends IllegalArgumentException {
    InvalidAnnotation(String annotation, String value, List<String> allowed) {
      this(annotation, value, allowed, "");
    }

    InvalidAnnotation(String annotation, String value, List<String> allowed, String why) {
      super(
          "annotation "
              + annotation
              + " has invalid value '"
              + value
              + "': allowed values are "
              + String.join(", ", allowed)
              + why);
    }
  }

  /** The same choices with proxy-await decided elsewhere (the pod's own, in its mesh's terms). */
  public PodAnnotations withProxyAwait(boolean await) {
    return new PodAnnotations(redirect, iptablesMode, nativeSidecar, await, nativeSidecarBy);
  }

  /**
   * The same choices with the layout asked for by the mesh's own annotation.
   *
   * @param by the annotation and value, for messages
   */
  public PodAnnotations withNativeSidecar(boolean nativeSidecar, String by) {
    return new PodAnnotations(redirect, iptablesMode, nativeSidecar, proxyAwait, by);
  }

  /** The values of {@code iptables-mode} where the mesh has no native nftables mode. */
  private static final List<String> MODES = List.of("auto", "legacy", "nft", "plain");

  private static final List<String> MODES_WITH_NFTABLES =
      List.of("auto", "legacy", "nft", "plain", "nftables");

  /**
   * @param mesh whose init container renders the mode: only Istio's has native nftables
   */
  public static PodAnnotations parse(Map<String, String> annotations, Mesh mesh) {
    Map<String, String> a = annotations == null ? Map.of() : annotations;
    String redirect = pick(a, Annotations.REDIRECT, "auto", List.of("auto", "init", "cni"));
    List<String> modes = mesh.nativeNftables() ? MODES_WITH_NFTABLES : MODES;
    String asked = a.get(Annotations.IPTABLES_MODE);
    if (!mesh.nativeNftables() && asked != null && asked.trim().equals("nftables")) {
      throw new InvalidAnnotation(
          Annotations.IPTABLES_MODE,
          asked,
          modes,
          " (Linkerd's proxy-init has no native nftables mode; Istio's istio-init has)");
    }
    String mode = pick(a, Annotations.IPTABLES_MODE, "auto", modes);
    String sidecar =
        pick(a, Annotations.NATIVE_SIDECAR, "auto", List.of("auto", "enabled", "disabled"));
    String await = pick(a, Annotations.PROXY_AWAIT, "enabled", List.of("enabled", "disabled"));
    return new PodAnnotations(
        switch (redirect) {
          case "init" -> Redirect.INIT;
          case "cni" -> Redirect.CNI;
          default -> null;
        },
        "auto".equals(mode) ? null : IptablesMode.fromId(mode).orElseThrow(),
        "auto".equals(sidecar) ? null : "enabled".equals(sidecar),
        "enabled".equals(await));
  }

  /**
   * Reads the inject setting ({@code enabled}/{@code disabled}) of a pod or namespace, under either
   * spelling, {@code inject} or {@code mesh-injector.io/inject}. Each value present must be valid.
   *
   * @param owner {@code namespace NAME} for a namespace, null for the pod
   * @return empty when neither spelling is present
   * @throws InvalidAnnotation for an invalid value, naming its key (and the owner)
   */
  public static Optional<InjectAnnotation> inject(Map<String, String> annotations, String owner) {
    if (annotations == null) {
      return Optional.empty();
    }
    List<String> allowed = List.of("enabled", "disabled");
    String bare = pick(annotations, Annotations.INJECT, null, allowed, owner);
    String prefixed = pick(annotations, Annotations.INJECT_PREFIXED, null, allowed, owner);
    if (bare == null && prefixed == null) {
      return Optional.empty();
    }
    return Optional.of(InjectAnnotation.of(owner, bare, prefixed));
  }

  private static String pick(
      Map<String, String> a, String annotation, String dflt, List<String> allowed) {
    return pick(a, annotation, dflt, allowed, null);
  }

  private static String pick(
      Map<String, String> a, String annotation, String dflt, List<String> allowed, String owner) {
    String v = a.get(annotation);
    if (v == null) {
      return dflt;
    }
    String trimmed = v.trim();
    if (!allowed.contains(trimmed)) {
      throw new InvalidAnnotation(
          owner == null ? annotation : annotation + " on " + owner, v, allowed);
    }
    return trimmed;
  }
}
