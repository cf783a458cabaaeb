package io.meshinjector.engine.repair;

import java.util.Locale;
import java.util.Optional;

/**
 * The containers that set up or check a pod's redirect, as the injector's templates name them
 * (injector-templates: {@code proxy-init.yaml}, {@code validator.yaml} and their {@code istio/}
 * counterparts), and how each says the redirect is broken.
 *
 * <p>The validators have one exit code for "the redirect is not in place" (Linkerd's
 * linkerd-network-validator exits 95, Istio's istio-validation 126, the codes both meshes' own
 * repair controllers act on); any other code is something else (a bad flag, an OOM kill) that a new
 * pod would not fix. The iptables init containers have no such code: any non-zero exit means the
 * rules were not written.
 */
public enum Flavour {
  LINKERD("linkerd-init", "linkerd-network-validator", 95),
  ISTIO("istio-init", "istio-validation", 126);

  private final String initContainer;
  private final String validator;
  private final int validatorExitCode;

  Flavour(String initContainer, String validator, int validatorExitCode) {
    this.initContainer = initContainer;
    this.validator = validator;
    this.validatorExitCode = validatorExitCode;
  }

  /** The metric's label value. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The flavour whose redirect step this container is, if it is one. */
  public static Optional<Flavour> ofContainer(String name) {
    for (Flavour f : values()) {
      if (f.initContainer.equals(name) || f.validator.equals(name)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** Whether this exit code of this container means the redirect is not in place. */
  boolean broken(String container, int exitCode) {
    if (container.equals(validator)) {
      return exitCode == validatorExitCode;
    }
    return container.equals(initContainer) && exitCode != 0;
  }
}
