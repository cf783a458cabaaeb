package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An informer's cache that keeps each object trimmed: the informer hands its handlers the object as
 * it arrived, and the cache, which lives as long as the process, keeps only what is read later.
 */
public final class TrimmingStore<T extends HasMetadata> implements ItemStore<T> {
  private final Map<String, T> items = new ConcurrentHashMap<>();
  private final UnaryOperator<T> trim;

  public TrimmingStore(UnaryOperator<T> trim) {
    this.trim = trim;
  }

  @Override
  public String getKey(T object) {
    return Cache.metaNamespaceKeyFunc(object);
  }

  @Override
  public T put(String key, T object) {
    return items.put(key, trim.apply(object));
  }

  @Override
  public T remove(String key) {
    return items.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet().stream();
  }

  @Override
  public Stream<T> values() {
    return items.values().stream();
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public T get(String key) {
    return items.get(key);
  }
}
