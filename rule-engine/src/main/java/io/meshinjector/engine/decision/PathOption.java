package io.meshinjector.engine.decision;

import java.util.Objects;

/**
 * One redirect path the engine can choose: {@code cni}, or {@code init} with a mode. Written in
 * config as {@code cni}, {@code init/nft}, {@code init/legacy}, {@code init/plain} or {@code
 * init/nftables}.
 *
 * @param mode null exactly when the redirect is {@link Redirect#CNI}
 */
public record PathOption(Redirect redirect, IptablesMode mode) {
  public static final PathOption CNI = new PathOption(Redirect.CNI, null);
  public static final PathOption INIT_NFT = new PathOption(Redirect.INIT, IptablesMode.NFT);
  public static final PathOption INIT_LEGACY = new PathOption(Redirect.INIT, IptablesMode.LEGACY);
  public static final PathOption INIT_PLAIN = new PathOption(Redirect.INIT, IptablesMode.PLAIN);
  public static final PathOption INIT_NFTABLES =
      new PathOption(Redirect.INIT, IptablesMode.NFTABLES);

  public PathOption {
    Objects.requireNonNull(redirect, "redirect");
    if ((redirect == Redirect.CNI) != (mode == null)) {
      throw new IllegalArgumentException("the init path needs a mode and the cni path has none");
    }
  }

  /**
   * Parses {@code cni} or {@code init/<mode>}.
   *
   * @throws IllegalArgumentException naming the allowed values
   */
  public static PathOption parse(String text) {
    return switch (text == null ? "" : text.trim()) {
      case "cni" -> CNI;
      case "init/nft" -> INIT_NFT;
      case "init/legacy" -> INIT_LEGACY;
      case "init/plain" -> INIT_PLAIN;
      case "init/nftables" -> INIT_NFTABLES;
      default ->
          throw new IllegalArgumentException(
              "invalid redirect path '"
                  + text
                  + "': allowed [cni, init/nft, init/legacy, init/plain, init/nftables]");
    };
  }

  @Override
  public String toString() {
    return mode == null ? redirect.id() : redirect.id() + "/" + mode.id();
  }
}
