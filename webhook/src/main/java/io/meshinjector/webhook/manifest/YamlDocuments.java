package io.meshinjector.webhook.manifest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactoryBuilder;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ImplicitTuple;
import org.yaml.snakeyaml.events.MappingEndEvent;
import org.yaml.snakeyaml.events.MappingStartEvent;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.events.SequenceEndEvent;
import org.yaml.snakeyaml.events.SequenceStartEvent;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Multi-document YAML as kubectl reads it: aliases are expanded and {@code <<} merge keys applied
 * (go-yaml does both), so a manifest means its expanded tree.
 *
 * <p>SnakeYAML composes each document, which resolves aliases to the anchored nodes; the expanded
 * graph is then replayed as events into Jackson's own YAML parser, so that scalars get exactly the
 * types Jackson gave them when it read the file directly.
 */
final class YamlDocuments {
  /** One document and the line (1-based) where it starts. */
  record Document(JsonNode tree, int line) {}

  /** A problem at a place in the text. */
  static final class YamlProblem extends RuntimeException {
    private final int line;
    private final int column;

    YamlProblem(String message, int line, int column) {
      super(message);
      this.line = line;
      this.column = column;
    }

    YamlProblem(String message, Mark mark) {
      this(
          message,
          mark == null ? -1 : mark.getLine() + 1,
          mark == null ? -1 : mark.getColumn() + 1);
    }

    /** 1-based; -1 when unknown. */
    int line() {
      return line;
    }

    /** 1-based; -1 when unknown. */
    int column() {
      return column;
    }
  }

  /**
   * Aliases can nest (a billion laughs fits in a few lines), and expanding is what makes them big.
   * A document may grow by this many nodes through its aliases, whatever its size: a file's length
   * must not buy a bigger expansion.
   */
  private static final long ALIAS_EXPANSION_LIMIT = 1_000_000;

  /** The same YAML 1.1 resolver Jackson's parser and SnakeYAML's composer use. */
  private static final Resolver RESOLVER = new Resolver();

  private final LoaderOptions loaderOptions;
  private final ObjectMapper mapper;

  YamlDocuments(LoaderOptions loaderOptions, YAMLFactoryBuilder jackson) {
    this.loaderOptions = loaderOptions;
    this.mapper = new ObjectMapper(new ReplayingFactory(jackson));
  }

  /** The documents of {@code text}, in order, including empty ones (as null trees). */
  List<Document> read(String text) {
    List<Document> docs = new ArrayList<>();
    try {
      for (Node root : new Yaml(loaderOptions).composeAll(new StringReader(text))) {
        List<Event> events = new ArrayList<>();
        long budget =
            ownEvents(root, Collections.newSetFromMap(new IdentityHashMap<>()))
                + ALIAS_EXPANSION_LIMIT;
        new Expander(events, budget).emit(root);
        docs.add(new Document(toTree(events), root.getStartMark().getLine() + 1));
      }
    } catch (MarkedYAMLException e) {
      throw problem(e);
    } catch (YAMLException e) {
      // limits (code points, nesting, aliases) carry no mark
      throw new YamlProblem(firstLine(e.getMessage()), -1, -1);
    } catch (NumberFormatException e) {
      // SnakeYAML's scanner parses an escape's hex digits without checking that there are any left
      throw new YamlProblem(
          "a double-quoted string ends in a \\x, \\u or \\U escape before its hex digits", -1, -1);
    }
    return docs;
  }

  private JsonNode toTree(List<Event> events) {
    try (ReplayingParser parser =
        (ReplayingParser) mapper.getFactory().createParser(Reader.nullReader())) {
      parser.replay(events.iterator());
      return mapper.readTree(parser);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new YamlProblem(
          firstLine(e.getOriginalMessage()),
          at == null ? -1 : at.getLineNr(),
          at == null ? -1 : at.getColumnNr());
    } catch (IOException e) {
      throw new YamlProblem(firstLine(e.getMessage()), -1, -1);
    }
  }

  private static YamlProblem problem(MarkedYAMLException e) {
    StringBuilder message = new StringBuilder();
    message.append(e.getProblem() == null ? firstLine(e.getMessage()) : e.getProblem());
    if (e.getContext() != null) {
      message.append(" (").append(e.getContext());
      Mark context = e.getContextMark();
      // SnakeYAML's context names where the broken construct began, which is often far above
      if (context != null && !context.equals(e.getProblemMark())) {
        message
            .append(" that starts at line ")
            .append(context.getLine() + 1)
            .append(", column ")
            .append(context.getColumn() + 1);
      }
      message.append(')');
    }
    return new YamlProblem(message.toString(), e.getProblemMark());
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse(s);
  }

  /** Walks one composed document, aliases expanded and merge keys applied, as parser events. */
  /** The events of {@code node} with every alias left unexpanded: what the text itself holds. */
  private static long ownEvents(Node node, Set<Node> seen) {
    if (!seen.add(node)) {
      return 0;
    }
    return switch (node.getNodeId()) {
      case sequence ->
          2 + ((SequenceNode) node).getValue().stream().mapToLong(n -> ownEvents(n, seen)).sum();
      case mapping ->
          2
              + ((MappingNode) node)
                  .getValue().stream()
                      .mapToLong(
                          t -> ownEvents(t.getKeyNode(), seen) + ownEvents(t.getValueNode(), seen))
                      .sum();
      default -> 1;
    };
  }

  private static final class Expander {
    private final List<Event> events;
    private final long budget;

    /** The collections being walked: meeting one again means an alias to an enclosing node. */
    private final Set<Node> open = Collections.newSetFromMap(new IdentityHashMap<>());

    Expander(List<Event> events, long budget) {
      this.events = events;
      this.budget = budget;
    }

    void emit(Node node) {
      if (events.size() >= budget) {
        throw new YamlProblem(
            "the aliases of this document expand to more than " + budget + " nodes",
            node.getStartMark());
      }
      switch (node.getNodeId()) {
        case scalar -> events.add(scalar((ScalarNode) node));
        case sequence -> {
          enter(node);
          SequenceNode seq = (SequenceNode) node;
          events.add(
              new SequenceStartEvent(
                  null, null, true, node.getStartMark(), node.getEndMark(), seq.getFlowStyle()));
          seq.getValue().forEach(this::emit);
          events.add(new SequenceEndEvent(node.getEndMark(), node.getEndMark()));
          open.remove(node);
        }
        case mapping -> {
          enter(node);
          MappingNode map = (MappingNode) node;
          events.add(
              new MappingStartEvent(
                  null, null, true, node.getStartMark(), node.getEndMark(), map.getFlowStyle()));
          for (NodeTuple t : entries(map)) {
            emit(t.getKeyNode());
            emit(t.getValueNode());
          }
          events.add(new MappingEndEvent(node.getEndMark(), node.getEndMark()));
          open.remove(node);
        }
        default -> throw new YamlProblem("unexpected " + node.getNodeId(), node.getStartMark());
      }
    }

    private void enter(Node node) {
      if (!open.add(node)) {
        throw new YamlProblem(
            "the node anchored here holds an alias to itself, which cannot be expanded",
            node.getStartMark());
      }
    }

    /**
     * The entries of {@code map} with its merge keys applied, as YAML 1.1 defines them: an explicit
     * key wins over a merged one, and among merged mappings the earlier one wins. Merged entries
     * take the place of their {@code <<} key, so the author's order is kept.
     */
    private List<NodeTuple> entries(MappingNode map) {
      List<NodeTuple> tuples = map.getValue();
      if (!map.isMerged()) {
        return tuples;
      }
      Set<String> taken = new HashSet<>();
      for (NodeTuple t : tuples) {
        if (!isMerge(t.getKeyNode()) && t.getKeyNode() instanceof ScalarNode key) {
          taken.add(key.getValue());
        }
      }
      List<NodeTuple> out = new ArrayList<>();
      for (NodeTuple t : tuples) {
        if (!isMerge(t.getKeyNode())) {
          out.add(t);
          continue;
        }
        for (MappingNode source : mergeSources(t.getValueNode())) {
          enter(source);
          for (NodeTuple merged : entries(source)) {
            if (!(merged.getKeyNode() instanceof ScalarNode key) || taken.add(key.getValue())) {
              out.add(merged);
            }
          }
          open.remove(source);
        }
      }
      return out;
    }

    private static boolean isMerge(Node key) {
      return Tag.MERGE.equals(key.getTag());
    }

    private static List<MappingNode> mergeSources(Node value) {
      if (value instanceof MappingNode map) {
        return List.of(map);
      }
      if (value instanceof SequenceNode seq) {
        List<MappingNode> maps = new ArrayList<>();
        for (Node item : seq.getValue()) {
          if (!(item instanceof MappingNode map)) {
            throw new YamlProblem(
                "a merge key (<<) takes a mapping or a list of mappings, and this list holds a "
                    + item.getNodeId(),
                item.getStartMark());
          }
          maps.add(map);
        }
        return maps;
      }
      throw new YamlProblem(
          "a merge key (<<) takes a mapping or a list of mappings, not a " + value.getNodeId(),
          value.getStartMark());
    }

    /**
     * The event the parser would have produced for this scalar, so that Jackson types it the same
     * way: implicit when its tag is the one its text resolves to, explicit otherwise.
     */
    private static ScalarEvent scalar(ScalarNode s) {
      String value = s.getValue();
      boolean plain = s.getScalarStyle() == DumperOptions.ScalarStyle.PLAIN;
      String tag = null;
      ImplicitTuple implicit;
      if (plain && s.getTag().equals(RESOLVER.resolve(NodeId.scalar, value, true))) {
        implicit = new ImplicitTuple(true, false);
      } else if (!plain && s.getTag().equals(Tag.STR)) {
        implicit = new ImplicitTuple(false, true);
      } else {
        tag = s.getTag().getValue();
        implicit = new ImplicitTuple(false, false);
      }
      return new ScalarEvent(
          null, tag, implicit, value, s.getStartMark(), s.getEndMark(), s.getScalarStyle());
    }
  }

  /** Creates {@link ReplayingParser}s, configured like any parser of the factory. */
  private static final class ReplayingFactory extends YAMLFactory {
    private static final long serialVersionUID = 1L;

    ReplayingFactory(YAMLFactoryBuilder builder) {
      super(builder);
    }

    @Override
    protected YAMLParser _createParser(Reader r, IOContext ctxt) {
      return new ReplayingParser(
          ctxt, _parserFeatures, _yamlParserFeatures, _loaderOptions, _objectCodec, r);
    }
  }

  /** Jackson's YAML parser fed from a list of events instead of text. */
  private static final class ReplayingParser extends YAMLParser {
    private Iterator<Event> events = Collections.emptyIterator();

    ReplayingParser(
        IOContext ctxt,
        int parserFeatures,
        int formatFeatures,
        LoaderOptions loaderOptions,
        ObjectCodec codec,
        Reader reader) {
      super(ctxt, parserFeatures, formatFeatures, loaderOptions, codec, reader);
    }

    void replay(Iterator<Event> events) {
      this.events = events;
    }

    @Override
    protected Event getEvent() {
      return events.hasNext() ? events.next() : null;
    }
  }
}
