package io.meshinjector.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TomlTest {
  @Test
  void readsContainerdStyleQuotedTablePaths() {
    Map<String, Object> doc =
        Toml.parse(
            """
            # containerd 1.7
            version = 2
            [plugins."io.containerd.grpc.v1.cri" . cni]   # spaces around dots are legal
              bin_dir = "/opt/cni/bin"
            [plugins.'io.containerd.cri.v1.runtime'.cni]
              bin_dirs = ['/a', "/b",
                # a comment inside an array
                '/c',]
            [[proxy_plugins]]
              name = "one"
            [[proxy_plugins]]
              name = "two"
              settings = { address = "/run/x.sock", nested.key = 'v' }
            """);

    assertThat(Toml.get(doc, "version")).isEqualTo("2");
    assertThat(Toml.get(doc, "plugins", "io.containerd.grpc.v1.cri", "cni", "bin_dir"))
        .isEqualTo("/opt/cni/bin");
    assertThat(Toml.get(doc, "plugins", "io.containerd.cri.v1.runtime", "cni", "bin_dirs"))
        .isEqualTo(List.of("/a", "/b", "/c"));
    assertThat(Toml.get(doc, "proxy_plugins"))
        .asList()
        .hasSize(2)
        .last()
        .isEqualTo(
            Map.of(
                "name",
                "two",
                "settings",
                Map.of("address", "/run/x.sock", "nested", Map.of("key", "v"))));
  }

  @Test
  void readsEveryStringForm() {
    Map<String, Object> doc =
        Toml.parse(
            "basic = \"tab\\there \\u00e9 \\\"q\\\"\"\n"
                + "literal = 'C:\\no\\escapes'\n"
                + "multi = \"\"\"\nline one \\\n    continued\"\"\"\n"
                + "raw = '''\nfirst\nsecond'''\n"
                + "dotted.key = true\n"
                + "when = 1979-05-27 07:32:00Z # a comment\n");

    assertThat(doc)
        .containsEntry("basic", "tab\there é \"q\"")
        .containsEntry("literal", "C:\\no\\escapes")
        .containsEntry("multi", "line one continued")
        .containsEntry("raw", "first\nsecond")
        .containsEntry("dotted", Map.of("key", "true"))
        .containsEntry("when", "1979-05-27 07:32:00Z");
  }

  static Stream<Arguments> broken() {
    return Stream.of(
        Arguments.of("a = 1\na = 2\n", "line 2: duplicate key 'a'"),
        Arguments.of("[table\nx = 1\n", "line 1: expected ']'"),
        Arguments.of("s = \"open\n", "line 1: newline in a single-line string"),
        Arguments.of("k = [1, 2\n", "expected ',' or ']' but the file ended"),
        Arguments.of("k = 1 junk = 2\n", "line 1: unexpected 'j' after a value"),
        Arguments.of("= 1\n", "line 1: expected a key but found '='"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("broken")
  void namesTheLineOfBrokenInput(String text, String message) {
    assertThatThrownBy(() -> Toml.parse(text))
        .isInstanceOf(Toml.TomlException.class)
        .hasMessageContaining(message);
  }
}
