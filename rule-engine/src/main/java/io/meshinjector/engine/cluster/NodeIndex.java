package io.meshinjector.engine.cluster;

/** Placeholder; replaced by the indexed implementation. */
public final class NodeIndex {}
