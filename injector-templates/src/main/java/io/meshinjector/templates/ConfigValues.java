package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.templates.TemplateConfig.Proxy;
import io.meshinjector.templates.TemplateConfig.ProxyInit;
import io.meshinjector.templates.TemplateConfig.Validator;
import io.meshinjector.templates.internal.Template;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The template values the config sets: every key of the value sections and of {@code
 * templates.values} under its dotted name, and those derived from the bound sections.
 */
final class ConfigValues {
  private static final String[] VALUE_SECTIONS = {"proxy", "proxyInit", "validator", "proxyAwait"};

  private ConfigValues() {}

  /**
   * @param extra {@code templates.values}
   */
  static Map<String, JsonNode> of(
      MeshConfig config,
      JsonNode extra,
      Proxy proxy,
      ProxyInit proxyInit,
      Validator validator,
      String version) {
    Map<String, JsonNode> values = new LinkedHashMap<>();
    for (String s : VALUE_SECTIONS) {
      Template.flatten(s, config.tree().get(s), values);
    }
    Template.flatten("values", extra, values);
    derived(values, proxy, proxyInit, validator, version);
    return values;
  }

  /**
   * The values a pod whose decision redirects IPv6 too renders with instead of the config's: {@code
   * overlay} ({@code templates.ipv6Values}) laid over {@code extra} ({@code templates.values}),
   * maps merged key by key, by dotted name; only the names whose value differs (a changed map under
   * its own name too, for a template that takes it whole).
   */
  static Map<String, JsonNode> ipv6(JsonNode extra, JsonNode overlay) {
    ObjectNode merged = ((ObjectNode) extra).deepCopy();
    merge(merged, overlay);
    Map<String, JsonNode> before = new LinkedHashMap<>();
    Template.flatten("values", extra, before);
    Map<String, JsonNode> after = new LinkedHashMap<>();
    Template.flatten("values", merged, after);
    after.entrySet().removeIf(e -> e.getValue().equals(before.get(e.getKey())));
    return after;
  }

  private static void merge(ObjectNode into, JsonNode over) {
    for (Iterator<Map.Entry<String, JsonNode>> it = over.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode mine = into.get(e.getKey());
      if (mine != null && mine.isObject() && e.getValue().isObject()) {
        merge((ObjectNode) mine, e.getValue());
      } else {
        into.set(e.getKey(), e.getValue().deepCopy());
      }
    }
  }

  private static void derived(
      Map<String, JsonNode> values,
      Proxy proxy,
      ProxyInit init,
      Validator validator,
      String version) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    values.put("proxy.imageRef", f.textNode(proxy.imageRef()));
    values.put(
        "proxyInit.imageRef", f.textNode(init.image().isEmpty() ? proxy.imageRef() : init.image()));
    values.put(
        "validator.imageRef",
        f.textNode(validator.image().isEmpty() ? proxy.imageRef() : validator.image()));
    // The proxy's own control and admin ports must never be redirected to the proxy itself.
    List<String> inbound = new ArrayList<>();
    inbound.add(Integer.toString(proxy.ports().control()));
    inbound.add(Integer.toString(proxy.ports().admin()));
    inbound.addAll(init.ignoreInboundPorts());
    values.put("proxyInit.inboundPortsToIgnore", f.textNode(String.join(",", inbound)));
    values.put(
        "proxyInit.outboundPortsToIgnore",
        f.textNode(String.join(",", init.ignoreOutboundPorts())));
    values.put("proxyInit.subnetsToIgnore", f.textNode(String.join(",", init.skipSubnets())));
    values.put("proxy.trustRootSha256", f.textNode(sha256(proxy.trustAnchorsPem())));
    values.put("injector.version", f.textNode(version));
  }

  /** Linkerd's {@code linkerd.io/trust-root-sha256}: the hex SHA-256 of the PEM text as given. */
  static String sha256(String pem) {
    if (pem.isEmpty()) {
      return "";
    }
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(pem.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String bundledVersion() {
    try (InputStream in =
        TemplateConfig.class.getResourceAsStream(
            TemplateSection.RESOURCES + "version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      String v = p.getProperty("version", "");
      return v.isEmpty() || v.startsWith("${") ? "dev" : v;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
