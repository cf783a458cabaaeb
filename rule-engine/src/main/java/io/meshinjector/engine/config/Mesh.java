package io.meshinjector.engine.config;

/** Whose proxy the pods get ({@code mesh}): the templates speak for that mesh. */
public enum Mesh {
  LINKERD,
  ISTIO;

  /**
   * Whether the mesh's init container can redirect with nft itself ({@code init/nftables}):
   * istio-init's {@code --native-nftables}; Linkerd's proxy-init has no such mode.
   */
  public boolean nativeNftables() {
    return this == ISTIO;
  }
}
