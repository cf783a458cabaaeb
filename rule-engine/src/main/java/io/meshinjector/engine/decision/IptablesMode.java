package io.meshinjector.engine.decision;

import io.meshinjector.engine.capability.CapabilityKey;
import java.util.Arrays;
import java.util.Optional;

/** The iptables backend the init container uses. */
public enum IptablesMode {
  LEGACY("legacy"),
  NFT("nft"),
  /** The image's default {@code iptables}; only when an operator or the pod asks for it. */
  PLAIN("plain");

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
    };
  }

  public static Optional<IptablesMode> fromId(String id) {
    return Arrays.stream(values()).filter(m -> m.id.equals(id)).findFirst();
  }

  @Override
  public String toString() {
    return id;
  }
}
