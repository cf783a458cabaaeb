package io.meshinjector.webhook.manifest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads and writes manifest files: multi-document YAML, or JSON (one or several concatenated
 * values). Documents are kept as trees, so whatever the injector does not touch is printed as it
 * was read.
 */
public final class Manifests {
  /** Generous: these are a user's own files, and a big List of a whole namespace is normal. */
  private static final int MAX_FILE_CODE_POINTS = 256 * 1024 * 1024;

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, false);

  private static final ObjectMapper YAML_READER;
  private static final ObjectMapper YAML_WRITER;

  static {
    LoaderOptions loader = new LoaderOptions();
    loader.setCodePointLimit(MAX_FILE_CODE_POINTS);
    YAML_READER =
        new ObjectMapper(
            YAMLFactory.builder()
                .loaderOptions(loader)
                // "annotations:" with nothing after it is null in YAML, not ""
                .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
                .streamReadConstraints(
                    StreamReadConstraints.builder().maxStringLength(MAX_FILE_CODE_POINTS).build())
                .build());
    YAML_WRITER =
        new ObjectMapper(
                YAMLFactory.builder()
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    // MINIMIZE_QUOTES leaves 0x1F, 1e3 or .inf plain, which kubectl reads as
                    // numbers
                    .stringQuotingChecker(new KubectlQuoting())
                    // "8080" and "true" stay strings when read back
                    .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                    .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                    .build())
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
  }

  private Manifests() {}

  /** Reads {@code -} as standard input, anything else as a file. */
  public static List<JsonNode> read(String source, InputStream stdin) {
    try {
      if ("-".equals(source)) {
        return parse(new String(stdin.readAllBytes(), StandardCharsets.UTF_8), "standard input");
      }
      return parse(Files.readString(Path.of(source), StandardCharsets.UTF_8), source);
    } catch (NoSuchFileException e) {
      throw new ManifestException(source + ": no such file");
    } catch (IOException e) {
      throw new ManifestException(source + ": cannot read: " + e.getMessage());
    }
  }

  public static List<JsonNode> read(Path file) {
    return read(file.toString(), InputStream.nullInputStream());
  }

  /** The documents of {@code text}, in order; empty documents are left out. */
  public static List<JsonNode> parse(String text, String origin) {
    String trimmed = text.stripLeading();
    boolean json = trimmed.startsWith("{") || trimmed.startsWith("[");
    ObjectMapper mapper = json ? JSON : YAML_READER;
    List<JsonNode> docs = new ArrayList<>();
    try (JsonParser parser = mapper.createParser(text);
        MappingIterator<JsonNode> it = mapper.readValues(parser, JsonNode.class)) {
      while (it.hasNextValue()) {
        JsonNode doc = it.nextValue();
        // "---" at the end of a file reads as one more, empty, document
        if (doc == null
            || doc.isNull()
            || doc.isMissingNode()
            || (doc.isTextual() && doc.asText().isBlank())) {
          continue;
        }
        if (!doc.isObject()) {
          throw new ManifestException(
              origin
                  + ": document "
                  + (docs.size() + 1)
                  + " is a "
                  + doc.getNodeType().toString().toLowerCase(java.util.Locale.ROOT)
                  + ", not a Kubernetes object");
        }
        docs.add(doc);
      }
    } catch (IOException e) {
      String message = e.getMessage() == null ? e.toString() : e.getMessage();
      throw new ManifestException(
          origin
              + ": not valid "
              + (json ? "JSON" : "YAML")
              + ": "
              + message.lines().findFirst().orElse(message));
    } catch (RuntimeException e) {
      if (e instanceof ManifestException) {
        throw e;
      }
      // MappingIterator wraps parse errors of later documents in a RuntimeException
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new ManifestException(
          origin + ": not valid " + (json ? "JSON" : "YAML") + ": " + cause.getMessage());
    }
    return docs;
  }

  /** The documents as multi-document YAML, separated by {@code ---}. */
  public static String toYaml(List<JsonNode> docs) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < docs.size(); i++) {
      if (i > 0) {
        out.append("---\n");
      }
      try {
        out.append(YAML_WRITER.writeValueAsString(docs.get(i)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out.toString();
  }

  /** The mapper for turning trees into fabric8 objects and back. */
  public static ObjectMapper json() {
    return JSON;
  }
}
