package io.meshinjector.webhook.probe;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.probe.ProbeFacts;
import io.meshinjector.engine.probe.ProbeReport;
import io.meshinjector.webhook.cluster.NodeCapabilityResource;
import java.net.HttpURLConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Writes a node's {@code NodeCapability} status.
 *
 * <p>Server-side apply, in two calls: the object itself (so the first run creates it), then the
 * {@code status} subresource. Apply replaces the whole status this field manager owns, so a fact
 * the probe stops reporting disappears, which a merge patch would keep forever.
 *
 * <p>One field manager a revision ({@link #fieldManager}): two releases of different versions can
 * probe the same node at once (a handover of the probe from one to the other), or an older one can
 * run after a newer one. Under one shared manager the older release's apply would own, and so
 * remove, the fields only the newer one writes (a capability key, a fact, a status field it does
 * not know). With a manager each, an apply removes only what its own revision wrote before.
 *
 * <p>Servers that do not speak apply-patch get the older create-then-replace-status path: fabric8's
 * CRUD mock answers 404 to an apply on a missing object and 415 to one on an existing object. A
 * real API server (>= 1.22) takes that path only when the CRD is missing, and then fails there.
 * Having no field managers to go by, that path keeps what the current status holds that this
 * version does not write ({@link #keepingUnknown}).
 */
public final class NodeCapabilityWriter {
  /** The field manager of revision {@code default}, and of every release before revisions. */
  public static final String FIELD_MANAGER = "mesh-injector-probe";

  /**
   * The revision whose probe keeps {@link #FIELD_MANAGER}, so an upgrade in place owns its past.
   */
  public static final String DEFAULT_REVISION = "default";

  /** The status fields this version writes; any other is a newer version's, and kept. */
  private static final Set<String> STATUS_FIELDS =
      Set.of("observedAt", "capabilities", "facts", "sources");

  /**
   * The facts this version's probe can write besides {@code reason.}, {@code active.} and {@code
   * files.<key>} of its own keys: ProbeFacts' names. A fact missing here would be kept by the
   * replace path once the probe stops reporting it; NodeCapabilityUnknownFieldsTest checks the list
   * against ProbeFacts.
   */
  static final Set<String> KNOWN_FACTS =
      Set.of(
          ProbeFacts.OS,
          ProbeFacts.OS_NAME,
          ProbeFacts.KERNEL,
          ProbeFacts.LOADED_MODULES,
          ProbeFacts.BUILTIN_MODULES,
          ProbeFacts.INSTALLED_MODULES,
          ProbeFacts.MISSING_MODULES,
          ProbeFacts.HOST_IPTABLES,
          ProbeFacts.HOST_IPTABLES_LINK,
          ProbeFacts.HOST_BINARIES,
          ProbeFacts.CONTAINER_RUNTIME,
          ProbeFacts.CNI_CONF_DIR,
          ProbeFacts.CNI_CONF,
          ProbeFacts.CNI_IPTABLES_MODE,
          ProbeFacts.CNI_BIN_DIR,
          ProbeFacts.CNI_PLUGIN_BINARY,
          ProbeFacts.SELINUX);

  private static final List<String> KEYED_FACT_PREFIXES =
      List.of(ProbeFacts.REASON_PREFIX, ProbeFacts.ACTIVE_PREFIX, ProbeFacts.FILES_PREFIX);

  static final ResourceDefinitionContext CONTEXT = NodeCapabilityResource.CONTEXT;

  /** How the last write went; tests and logs read it. */
  public enum Method {
    SERVER_SIDE_APPLY,
    REPLACE
  }

  private final KubernetesClient client;
  private final String fieldManager;
  private volatile boolean applySupported = true;

  /**
   * @param fieldManager the server-side apply field manager, {@link #fieldManager} of the probe's
   *     revision
   */
  public NodeCapabilityWriter(KubernetesClient client, String fieldManager) {
    this.client = Objects.requireNonNull(client, "client");
    this.fieldManager = Objects.requireNonNull(fieldManager, "fieldManager");
  }

  /**
   * The field manager of {@code revision}'s probe: {@link #FIELD_MANAGER} for {@code default} (the
   * one every earlier release used, so an upgrade in place still owns what it wrote), {@code
   * mesh-injector-probe-<revision>} for any other.
   */
  public static String fieldManager(String revision) {
    return revision == null || revision.isEmpty() || revision.equals(DEFAULT_REVISION)
        ? FIELD_MANAGER
        : FIELD_MANAGER + "-" + revision;
  }

  /**
   * Writes {@code report} as the status of NodeCapability {@code nodeName}.
   *
   * @throws KubernetesClientException when the API server refuses the write
   */
  public Method write(String nodeName, ProbeReport report) {
    Map<String, Object> status = report.status().toMap();
    if (applySupported) {
      try {
        apply(nodeName, status);
        return Method.SERVER_SIDE_APPLY;
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_UNSUPPORTED_TYPE) {
          applySupported = false;
        } else if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
          throw e;
        }
        // 404 on apply: a real server creates on apply, so the CRD is missing (the replace path
        // then fails with the server's own message) or this is a mock that cannot create by patch
      }
    }
    replace(nodeName, status);
    return Method.REPLACE;
  }

  private void apply(String nodeName, Map<String, Object> status) {
    PatchContext ssa =
        new PatchContext.Builder()
            .withPatchType(PatchType.SERVER_SIDE_APPLY)
            .withFieldManager(fieldManager)
            .withForce(true)
            .build();
    GenericKubernetesResource bare = resource(nodeName, null);
    resources().withName(nodeName).patch(ssa, bare);
    resources().withName(nodeName).subresource("status").patch(ssa, resource(nodeName, status));
  }

  private void replace(String nodeName, Map<String, Object> status) {
    GenericKubernetesResource current = resources().withName(nodeName).get();
    if (current == null) {
      try {
        current = resources().resource(resource(nodeName, null)).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
          throw e;
        }
        current = resources().withName(nodeName).get();
      }
    }
    current.setAdditionalProperty(
        "status", keepingUnknown(current.getAdditionalProperties().get("status"), status));
    // current carries its resourceVersion: a write in between makes this a 409, retried next time
    Resource<GenericKubernetesResource> r = resources().resource(current);
    r.subresource("status").update();
  }

  /**
   * {@code status} plus what {@code current} (the stored status) holds that this version does not
   * write: status fields other than its own, capability and source entries of keys outside {@link
   * CapabilityKey}, and facts it cannot produce. Another release, newer or of another revision,
   * wrote them, and the replace would otherwise delete them. What this version knows is replaced,
   * so a fact it no longer reports still goes.
   */
  static Map<String, Object> keepingUnknown(Object current, Map<String, Object> status) {
    if (!(current instanceof Map<?, ?> stored)) {
      return status;
    }
    Map<String, Object> out = new LinkedHashMap<>(status);
    stored.forEach(
        (k, v) -> {
          String field = String.valueOf(k);
          switch (field) {
            case "capabilities", "sources" -> keep(out, field, v, NodeCapabilityWriter::unknownKey);
            case "facts" -> keep(out, field, v, NodeCapabilityWriter::unknownFact);
            default -> {
              if (!STATUS_FIELDS.contains(field)) {
                out.putIfAbsent(field, v);
              }
            }
          }
        });
    return out;
  }

  private static void keep(
      Map<String, Object> out, String field, Object stored, Predicate<String> unknown) {
    if (!(stored instanceof Map<?, ?> entries)) {
      return;
    }
    Map<String, Object> merged = new LinkedHashMap<>();
    if (out.get(field) instanceof Map<?, ?> own) {
      own.forEach((k, v) -> merged.put(String.valueOf(k), v));
    }
    int before = merged.size();
    entries.forEach(
        (k, v) -> {
          if (unknown.test(String.valueOf(k))) {
            merged.putIfAbsent(String.valueOf(k), v);
          }
        });
    if (merged.size() > before) {
      out.put(field, merged);
    }
  }

  private static boolean unknownKey(String key) {
    return CapabilityKey.fromId(key).isEmpty();
  }

  private static boolean unknownFact(String fact) {
    if (KNOWN_FACTS.contains(fact)) {
      return false;
    }
    for (String prefix : KEYED_FACT_PREFIXES) {
      if (fact.startsWith(prefix)) {
        return unknownKey(fact.substring(prefix.length()));
      }
    }
    return true;
  }

  private NonNamespaceOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      resources() {
    return client.genericKubernetesResources(CONTEXT);
  }

  static GenericKubernetesResource resource(String nodeName, Map<String, Object> status) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(NodeCapabilityStatus.API_VERSION);
    r.setKind(NodeCapabilityStatus.KIND);
    r.setMetadata(new ObjectMetaBuilder().withName(nodeName).build());
    if (status != null) {
      r.setAdditionalProperty("status", status);
    }
    return r;
  }
}
