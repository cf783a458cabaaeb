package io.meshinjector.webhook.manifest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
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
import java.util.Locale;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads and writes manifest files: multi-document YAML, or JSON (one or several concatenated
 * values), as kubectl reads and would accept them. Documents are kept as trees, so whatever the
 * injector does not touch is printed as it was read.
 */
public final class Manifests {
  /** Generous: these are a user's own files, and a big List of a whole namespace is normal. */
  private static final int MAX_FILE_CODE_POINTS = 256 * 1024 * 1024;

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, false);

  private static final YamlDocuments YAML_READER;
  private static final ObjectMapper YAML_WRITER;

  static {
    LoaderOptions loader = new LoaderOptions();
    loader.setCodePointLimit(MAX_FILE_CODE_POINTS);
    // SnakeYAML's default of 50 levels is below what a big CRD's openAPIV3Schema nests to; this is
    // Jackson's default, which applied when Jackson read the files itself
    loader.setNestingDepthLimit(StreamReadConstraints.DEFAULT_MAX_DEPTH);
    // expansion is bounded by YamlDocuments itself; the count of aliases alone is not the danger
    loader.setMaxAliasesForCollections(Integer.MAX_VALUE);
    YAML_READER =
        new YamlDocuments(
            loader,
            YAMLFactory.builder()
                .loaderOptions(loader)
                // "annotations:" with nothing after it is null in YAML, not ""
                .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
                .streamReadConstraints(
                    StreamReadConstraints.builder().maxStringLength(MAX_FILE_CODE_POINTS).build()));
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
    if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) {
      return yaml(text, origin);
    }
    List<JsonNode> json;
    try {
      json = readJson(text);
    } catch (JsonProcessingException notJson) {
      // JSON is YAML too, and a YAML file may well open with a flow mapping: {apiVersion: v1, ...}
      try {
        return yaml(text, origin);
      } catch (NotYaml notYaml) {
        throw furtherOf(notJson, notYaml, origin);
      }
    } catch (IOException e) {
      throw new ManifestException(origin + ": not valid JSON: " + firstLine(e.getMessage()));
    }
    List<JsonNode> docs = new ArrayList<>();
    for (JsonNode doc : json) {
      check(doc, docs.size() + 1, -1, origin).ifPresent(docs::add);
    }
    return docs;
  }

  private static List<JsonNode> yaml(String text, String origin) {
    List<YamlDocuments.Document> read;
    try {
      read = YAML_READER.read(text);
    } catch (YamlDocuments.YamlProblem p) {
      throw new NotYaml(origin, p);
    }
    List<JsonNode> docs = new ArrayList<>();
    for (YamlDocuments.Document doc : read) {
      check(doc.tree(), docs.size() + 1, doc.line(), origin).ifPresent(docs::add);
    }
    return docs;
  }

  private static List<JsonNode> readJson(String text) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (JsonParser parser = JSON.createParser(text);
        MappingIterator<JsonNode> it = JSON.readValues(parser, JsonNode.class)) {
      while (it.hasNextValue()) {
        docs.add(it.nextValue());
      }
    } catch (RuntimeException e) {
      // MappingIterator wraps parse errors of later documents in a RuntimeException
      if (e.getCause() instanceof IOException cause) {
        throw cause;
      }
      throw e;
    }
    return docs;
  }

  /** The document if it is one to keep; an error if it is not an object. */
  private static Optional<JsonNode> check(JsonNode doc, int number, int line, String origin) {
    // "---" at the end of a file reads as one more, empty, document
    if (doc == null
        || doc.isNull()
        || doc.isMissingNode()
        || (doc.isTextual() && doc.asText().isBlank())) {
      return Optional.empty();
    }
    if (!doc.isObject()) {
      throw new ManifestException(
          origin
              + ": document "
              + number
              + (line > 0 ? " (line " + line + ")" : "")
              + " is a "
              + doc.getNodeType().toString().toLowerCase(Locale.ROOT)
              + ", not a Kubernetes object");
    }
    return Optional.of(doc);
  }

  /**
   * For a file that is neither JSON nor YAML, the error of the reader that got further: that is
   * most likely the one its author meant.
   */
  private static ManifestException furtherOf(
      JsonProcessingException json, NotYaml yaml, String origin) {
    JsonLocation at = json.getLocation();
    int line = at == null ? -1 : at.getLineNr();
    int column = at == null ? -1 : at.getColumnNr();
    if (yaml.problem.line() > line
        || (yaml.problem.line() == line && yaml.problem.column() > column)) {
      return yaml;
    }
    return new ManifestException(
        origin
            + ": not valid JSON"
            + at(line, column)
            + ": "
            + firstLine(json.getOriginalMessage()));
  }

  private static String at(int line, int column) {
    return line > 0 ? " at line " + line + ", column " + column : "";
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse(s);
  }

  /** A YAML syntax error, placed in the file. */
  private static final class NotYaml extends ManifestException {
    private final YamlDocuments.YamlProblem problem;

    NotYaml(String origin, YamlDocuments.YamlProblem problem) {
      super(
          origin
              + ": not valid YAML"
              + at(problem.line(), problem.column())
              + ": "
              + problem.getMessage());
      this.problem = problem;
    }
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
