package io.meshinjector.engine.rules;

import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.ConfigOverride;
import io.meshinjector.engine.decision.ConfigOverrides;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.linkerd.LinkerdAnnotation;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Linkerd's annotations that ask for a layout (native sidecar) or for proxy-await, read into the
 * engine's own choices, where the per-node rules still decide: a native sidecar asked for on mixed
 * nodes constrains or refuses the pod as {@code mesh-injector.io/native-sidecar: enabled} does.
 * Where this project's own annotation says otherwise, ours wins, with a warning.
 */
public final class LinkerdLayout {
  private static final List<LinkerdAnnotation> NATIVE_SPELLINGS =
      List.of(
          LinkerdAnnotation.NATIVE_SIDECAR,
          LinkerdAnnotation.NATIVE_SIDECAR_BETA,
          LinkerdAnnotation.NATIVE_SIDECAR_ALPHA);

  private LinkerdLayout() {}

  /**
   * @param own the pod's annotations, to see whether ours are there
   */
  public static PodAnnotations apply(
      PodAnnotations asked,
      ConfigOverrides overrides,
      Map<String, String> own,
      Consumer<TraceStep> trace,
      Consumer<String> warnings) {
    PodAnnotations out = asked;
    Optional<ConfigOverride> nat = nativeSidecar(overrides);
    if (nat.isPresent()) {
      boolean wants = nat.get().value().equals("true");
      String by = nat.get().annotation() + ": \"" + nat.get().written() + "\"" + from(nat.get());
      if (own.containsKey(Annotations.NATIVE_SIDECAR)) {
        if (asked.nativeSidecar() == null || asked.nativeSidecar() != wants) {
          warnings.accept(
              Annotations.NATIVE_SIDECAR
                  + ": "
                  + own.get(Annotations.NATIVE_SIDECAR).trim()
                  + " wins over "
                  + by);
        }
      } else {
        trace.accept(
            new TraceStep(
                "proxy", by + " asks for " + (wants ? "a native sidecar" : "a regular container")));
        out = out.withNativeSidecar(wants, by);
      }
    }
    Optional<ConfigOverride> await = applying(overrides, LinkerdAnnotation.PROXY_AWAIT);
    if (await.isPresent()) {
      boolean wants = await.get().value().equals("enabled");
      String by = await.get().annotation() + ": " + await.get().written() + from(await.get());
      if (own.containsKey(Annotations.PROXY_AWAIT)) {
        if (asked.proxyAwait() != wants) {
          warnings.accept(
              Annotations.PROXY_AWAIT
                  + ": "
                  + own.get(Annotations.PROXY_AWAIT).trim()
                  + " wins over "
                  + by);
        }
      } else {
        trace.accept(new TraceStep("await", by + " sets proxy-await"));
        out = out.withProxyAwait(wants);
      }
    }
    return out;
  }

  /** The native-sidecar setting that applies: the stable spelling, then beta, then alpha. */
  private static Optional<ConfigOverride> nativeSidecar(ConfigOverrides overrides) {
    for (LinkerdAnnotation a : NATIVE_SPELLINGS) {
      Optional<ConfigOverride> o = applying(overrides, a);
      if (o.isPresent()) {
        return o;
      }
    }
    return Optional.empty();
  }

  /** The pod's override of {@code a}, else its namespace's. */
  private static Optional<ConfigOverride> applying(ConfigOverrides overrides, LinkerdAnnotation a) {
    List<ConfigOverride> all = overrides.all(a.key());
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  private static String from(ConfigOverride o) {
    return o.fromNamespace() ? " (namespace)" : "";
  }
}
