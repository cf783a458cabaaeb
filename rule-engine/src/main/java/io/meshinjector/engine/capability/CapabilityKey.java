package io.meshinjector.engine.capability;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The capability vocabulary: one key per thing a node can or cannot do. */
public enum CapabilityKey {
  IPTABLES_LEGACY("iptables-legacy", Verdict.AVAILABLE, Verdict.UNAVAILABLE),
  IPTABLES_NFT("iptables-nft", Verdict.AVAILABLE, Verdict.UNAVAILABLE),
  CNI("cni", Verdict.READY, Verdict.ABSENT),
  NATIVE_SIDECAR("native-sidecar", Verdict.SUPPORTED, Verdict.UNSUPPORTED),
  /** A pod's init container can program the IPv6 nat table with ip6tables-legacy. */
  IP6TABLES_LEGACY("ip6tables-legacy", Verdict.AVAILABLE, Verdict.UNAVAILABLE),
  /** The same with ip6tables-nft. */
  IP6TABLES_NFT("ip6tables-nft", Verdict.AVAILABLE, Verdict.UNAVAILABLE),
  /**
   * A pod's init container can program the redirect with nft itself: an {@code inet} nat table,
   * both address families, no iptables.
   */
  NFTABLES("nftables", Verdict.AVAILABLE, Verdict.UNAVAILABLE),
  /** The node gives its pods IPv6 addresses ({@code spec.podCIDRs} has an IPv6 range). */
  IPV6_PODS("ipv6-pods", Verdict.PRESENT, Verdict.ABSENT),
  /** The node's operating system: the proxy and its init containers are Linux programs. */
  OS("os", Verdict.LINUX, Verdict.WINDOWS);

  /** Prefix of the node labels the webhook publishes; the key's name follows it. */
  public static final String LABEL_PREFIX = "capability.mesh-injector.io/";

  private final String id;
  private final Verdict positive;
  private final Verdict negative;

  CapabilityKey(String id, Verdict positive, Verdict negative) {
    this.id = id;
    this.positive = positive;
    this.negative = negative;
  }

  /** The key as written in YAML, labels and NodeCapability status, e.g. {@code iptables-nft}. */
  public String id() {
    return id;
  }

  /** The node label this key is published under. */
  public String label() {
    return LABEL_PREFIX + id;
  }

  /** The verdict that means "works here". */
  public Verdict positive() {
    return positive;
  }

  /** The three verdicts this key accepts, positive first. */
  public List<Verdict> verdicts() {
    return List.of(positive, negative, Verdict.UNKNOWN);
  }

  public boolean accepts(Verdict verdict) {
    return verdict == positive || verdict == negative || verdict == Verdict.UNKNOWN;
  }

  /**
   * Parses a verdict for this key, e.g. {@code ready} for {@code cni}.
   *
   * @throws IllegalArgumentException naming the key and the allowed values
   */
  public Verdict parseVerdict(String text) {
    Optional<Verdict> verdict = Verdict.fromId(text).filter(this::accepts);
    return verdict.orElseThrow(
        () ->
            new IllegalArgumentException(
                "invalid verdict '"
                    + text
                    + "' for capability '"
                    + id
                    + "': allowed "
                    + verdicts().stream().map(Verdict::id).toList()));
  }

  public static Optional<CapabilityKey> fromId(String id) {
    return Arrays.stream(values()).filter(k -> k.id.equals(id)).findFirst();
  }

  /** Parses a key or fails naming the allowed keys. */
  public static CapabilityKey parse(String id) {
    return fromId(id)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown capability key '"
                        + id
                        + "': allowed "
                        + Arrays.stream(values()).map(CapabilityKey::id).toList()));
  }

  @Override
  public String toString() {
    return id;
  }
}
