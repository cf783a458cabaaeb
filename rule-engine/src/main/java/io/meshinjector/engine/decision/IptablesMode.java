package io.meshinjector.engine.decision;

import io.meshinjector.engine.capability.CapabilityKey;
import java.util.Arrays;
import java.util.Optional;

/** The iptables backend the init container uses. */
public enum IptablesMode {
  LEGACY("legacy"),
  NFT("nft"),
  /** The image's default {@code iptables}; only when an operator or the pod asks for it. */
  PLAIN("plain"),
  /**
   * nft itself, an {@code inet} table for both address families, no iptables: Istio's {@code
   * nativeNftables}. Only where the operator's preference offers it; Linkerd has no such mode.
   */
  NFTABLES("nftables");

  private final String id;

  IptablesMode(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  /** The capability this mode needs on the node; plain uses the configured backend's key. */
  public CapabilityKey capability(IptablesMode plainBackend) {
    return switch (this) {
      case LEGACY -> CapabilityKey.IPTABLES_LEGACY;
      case NFT -> CapabilityKey.IPTABLES_NFT;
      case PLAIN ->
          plainBackend == LEGACY ? CapabilityKey.IPTABLES_LEGACY : CapabilityKey.IPTABLES_NFT;
      case NFTABLES -> CapabilityKey.NFTABLES;
    };
  }

  /**
   * The capability this mode needs on the node for the IPv6 half of the redirect; {@code nftables}
   * writes one {@code inet} table for both families, so its one key covers IPv6 too.
   */
  public CapabilityKey ipv6Capability(IptablesMode plainBackend) {
    return switch (this) {
      case LEGACY -> CapabilityKey.IP6TABLES_LEGACY;
      case NFT -> CapabilityKey.IP6TABLES_NFT;
      case PLAIN ->
          plainBackend == LEGACY ? CapabilityKey.IP6TABLES_LEGACY : CapabilityKey.IP6TABLES_NFT;
      case NFTABLES -> CapabilityKey.NFTABLES;
    };
  }

  /** Whether this mode runs iptables (legacy, nft or plain), as Linkerd's proxy-init does. */
  public boolean iptables() {
    return this != NFTABLES;
  }

  public static Optional<IptablesMode> fromId(String id) {
    return Arrays.stream(values()).filter(m -> m.id.equals(id)).findFirst();
  }

  @Override
  public String toString() {
    return id;
  }
}
