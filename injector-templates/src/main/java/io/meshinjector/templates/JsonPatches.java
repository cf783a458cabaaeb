package io.meshinjector.templates;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.zjsonpatch.DiffFlags;
import io.fabric8.zjsonpatch.JsonDiff;
import io.meshinjector.templates.internal.ShallowCopy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** The JSON Patch between an object and its rendered copy, by diff. */
public final class JsonPatches {
  // Only add/remove/replace: a move or copy is valid RFC 6902 but harder to audit, and some
  // patch consumers implement them loosely.
  private static final EnumSet<DiffFlags> FLAGS =
      EnumSet.of(
          DiffFlags.OMIT_MOVE_OPERATION,
          DiffFlags.OMIT_COPY_OPERATION,
          DiffFlags.OMIT_VALUE_ON_REMOVE);

  /** Starts every stand-in string; no Kubernetes field value holds a NUL. */
  private static final String STAND_IN = "\u0000same:";

  private static final ThreadLocal<Map<Object, String>> SAME = new ThreadLocal<>();

  /**
   * Writes a container or managed-fields entry that is equal in both pods as a short stand-in, so
   * the app's containers (hundreds of env vars) and managedFields are compared once with {@code
   * equals} instead of being serialised twice and walked by the diff.
   */
  private static final ObjectMapper STAND_INS =
      new ObjectMapper()
          .registerModule(new BlackbirdModule())
          .registerModule(
              new SimpleModule()
                  .setSerializerModifier(
                      new BeanSerializerModifier() {
                        @Override
                        public JsonSerializer<?> modifySerializer(
                            SerializationConfig config,
                            BeanDescription desc,
                            JsonSerializer<?> serializer) {
                          Class<?> type = desc.getBeanClass();
                          if (type == Container.class || type == ManagedFieldsEntry.class) {
                            return new StandIn(serializer);
                          }
                          return serializer;
                        }
                      }));

  private JsonPatches() {}

  /** The patch from {@code original} to {@code mutated}; empty when they serialise the same. */
  public static PatchResult diff(HasMetadata original, HasMetadata mutated) {
    if (original instanceof Pod a && mutated instanceof Pod b) {
      PatchResult fast = podDiff(a, b);
      if (fast != null) {
        return fast;
      }
    }
    return diff(
        PodInjector.JSON.valueToTree(original), (JsonNode) PodInjector.JSON.valueToTree(mutated));
  }

  /**
   * The patch between two JSON trees. Equal subtrees are skipped after one equality check, so a
   * pod's many env vars or large {@code managedFields} cost a comparison, not a diff.
   */
  public static PatchResult diff(JsonNode original, JsonNode mutated) {
    if (original.equals(mutated)) {
      return new PatchResult(JsonNodeFactory.instance.arrayNode());
    }
    return new PatchResult((ArrayNode) JsonDiff.asJson(original, mutated, FLAGS));
  }

  /**
   * The diff of the two pods without what rendering shared: the properties of the pod, its metadata
   * and its spec that hold the same instance on both sides are left out of both trees, and equal
   * containers and managed-fields entries are written as stand-ins. Null when a stand-in leaked
   * into the patch.
   */
  private static PatchResult podDiff(Pod a, Pod b) {
    Map<Object, String> same = new IdentityHashMap<>();
    if (a.getSpec() != null && b.getSpec() != null) {
      pair(a.getSpec().getContainers(), b.getSpec().getContainers(), same, "c");
      pair(a.getSpec().getInitContainers(), b.getSpec().getInitContainers(), same, "i");
    }
    if (a.getMetadata() != null && b.getMetadata() != null) {
      pair(a.getMetadata().getManagedFields(), b.getMetadata().getManagedFields(), same, "m");
    }
    ShallowCopy.Pair<Pod> pods = ShallowCopy.withoutShared(a, b);
    Pod pa = pods.a();
    Pod pb = pods.b();
    ShallowCopy.Pair<ObjectMeta> meta =
        ShallowCopy.withoutShared(pa.getMetadata(), pb.getMetadata());
    if (meta != null) {
      pa.setMetadata(meta.a());
      pb.setMetadata(meta.b());
    }
    ShallowCopy.Pair<PodSpec> spec = ShallowCopy.withoutShared(pa.getSpec(), pb.getSpec());
    if (spec != null) {
      pa.setSpec(spec.a());
      pb.setSpec(spec.b());
    }
    SAME.set(same);
    JsonNode ta;
    JsonNode tb;
    try {
      ta = STAND_INS.valueToTree(pa);
      tb = STAND_INS.valueToTree(pb);
    } finally {
      SAME.remove();
    }
    PatchResult r = diff(ta, tb);
    // Stand-ins are only valid where both sides hold them; an op that carries one would write
    // it into the pod, so the full diff decides then. Walked, not serialised: the patch holds
    // the whole rendered proxy.
    return !same.isEmpty() && holdsStandIn(r.patch()) ? null : r;
  }

  private static boolean holdsStandIn(JsonNode node) {
    if (node.isTextual()) {
      return node.textValue().startsWith(STAND_IN);
    }
    for (JsonNode child : node) {
      if (holdsStandIn(child)) {
        return true;
      }
    }
    return false;
  }

  private static <T> void pair(List<T> as, List<T> bs, Map<Object, String> same, String kind) {
    if (as == null || bs == null) {
      return;
    }
    List<T> unused = new ArrayList<>(as);
    for (int j = 0; j < bs.size(); j++) {
      T b = bs.get(j);
      for (int i = 0; i < unused.size(); i++) {
        T a = unused.get(i);
        if (a.equals(b)) {
          String id = STAND_IN + kind + j;
          same.put(a, id);
          same.put(b, id);
          unused.remove(i);
          break;
        }
      }
    }
  }

  private static final class StandIn extends JsonSerializer<Object> {
    private final JsonSerializer<Object> delegate;

    @SuppressWarnings("unchecked")
    StandIn(JsonSerializer<?> delegate) {
      this.delegate = (JsonSerializer<Object>) delegate;
    }

    @Override
    public void serialize(Object value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      Map<Object, String> same = SAME.get();
      String id = same == null ? null : same.get(value);
      if (id != null) {
        gen.writeString(id);
      } else {
        delegate.serialize(value, gen, provider);
      }
    }
  }
}
