package io.meshinjector.engine.probe;

import java.util.List;
import java.util.Optional;

/**
 * The CNI plugin's {@code iptables-mode} and the host binaries each mode runs (linkerd2-proxy-init:
 * {@code legacy} runs {@code iptables-legacy[-save]}, {@code nft} runs {@code iptables-nft[-save]},
 * {@code plain} runs {@code iptables[-save]}; {@code auto} picks nft or legacy by what it finds).
 */
enum CniIptablesMode {
  LEGACY("legacy", List.of("iptables-legacy", "iptables-legacy-save")),
  NFT("nft", List.of("iptables-nft", "iptables-nft-save")),
  PLAIN("plain", List.of("iptables", "iptables-save")),
  AUTO("auto", List.of());

  private final String id;
  private final List<String> binaries;

  CniIptablesMode(String id, List<String> binaries) {
    this.id = id;
    this.binaries = binaries;
  }

  String id() {
    return id;
  }

  /** The binaries this mode needs; for {@code auto}, see {@link #missingOn}. */
  List<String> binaries() {
    return binaries;
  }

  static Optional<CniIptablesMode> fromId(String id) {
    for (CniIptablesMode m : values()) {
      if (m.id.equals(id)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  /** The binaries this mode would call that the host lacks; empty when it can run. */
  List<String> missingOn(HostIptables host) {
    if (this == AUTO) {
      List<String> nft = NFT.missingOn(host);
      List<String> legacy = LEGACY.missingOn(host);
      if (nft.isEmpty() || legacy.isEmpty()) {
        return List.of();
      }
      return nft.size() <= legacy.size() ? nft : legacy;
    }
    return binaries.stream().filter(b -> !host.has(b)).toList();
  }
}
