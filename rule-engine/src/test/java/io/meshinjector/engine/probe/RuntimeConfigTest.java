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

/** The runtime configs the probe reads, through Jackson's TOML parser. */
class RuntimeConfigTest {
  @Test
  void readsContainerdStyleQuotedTablePaths() throws MalformedHostFile {
    Map<String, Object> doc =
        RuntimeConfig.parse(
            "/etc/containerd/config.toml",
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

    assertThat(RuntimeConfig.get(doc, "version")).isEqualTo(2);
    assertThat(RuntimeConfig.get(doc, "plugins", "io.containerd.grpc.v1.cri", "cni", "bin_dir"))
        .isEqualTo("/opt/cni/bin");
    assertThat(RuntimeConfig.get(doc, "plugins", "io.containerd.cri.v1.runtime", "cni", "bin_dirs"))
        .isEqualTo(List.of("/a", "/b", "/c"));
    assertThat(RuntimeConfig.get(doc, "proxy_plugins"))
        .asList()
        .hasSize(2)
        .last()
        .isEqualTo(
            Map.of(
                "name",
                "two",
                "settings",
                Map.of("address", "/run/x.sock", "nested", Map.of("key", "v"))));
    assertThat(RuntimeConfig.get(doc, "version", "deeper")).isNull();
    assertThat(RuntimeConfig.get(doc, "plugins", "absent", "cni")).isNull();
  }

  @Test
  void readsEveryStringForm() throws MalformedHostFile {
    Map<String, Object> doc =
        RuntimeConfig.parse(
            "f.toml",
            "basic = \"tab\\there \\u00e9 \\\"q\\\"\"\n"
                + "literal = 'C:\\no\\escapes'\n"
                + "multi = \"\"\"\nline one \\\n    continued\"\"\"\n"
                + "raw = '''\nfirst\nsecond'''\n"
                + "dotted.key = true\n");

    assertThat(doc)
        .containsEntry("basic", "tab\there é \"q\"")
        .containsEntry("literal", "C:\\no\\escapes")
        .containsEntry("multi", "line one continued")
        .containsEntry("raw", "first\nsecond")
        .containsEntry("dotted", Map.of("key", true));
  }

  static Stream<Arguments> broken() {
    return Stream.of(
        Arguments.of("a = 1\na = 2\n", "line 2: ", "Duplicate key"),
        Arguments.of("a = 1\na = 2\n\n\n# c\n", "line 2: ", "Duplicate key"),
        Arguments.of("a = 1\na = 2", "line 2: ", "Duplicate key"),
        Arguments.of("[t]\nb = 1\n[t]\n", "line 3: ", "Table redefined"),
        Arguments.of("[table\nx = 1\n", "line 1: ", "Newline not permitted here"),
        Arguments.of("s = \"open\n", "line 1: ", "Newline not permitted here"),
        Arguments.of("x = 1\nk = [1, 2\n", "line 3: ", "Premature end of file"),
        Arguments.of("k = 1 junk = 2\n", "line 1: ", "More data after value"),
        Arguments.of("\n\n= 1\n", "line 3: ", "Unexpected token"));
  }

  @ParameterizedTest(name = "{1}{2}")
  @MethodSource("broken")
  void namesTheFileAndTheLineOfBrokenInput(String text, String line, String what) {
    assertThatThrownBy(() -> RuntimeConfig.parse("/etc/crio/crio.conf", text))
        .isInstanceOf(MalformedHostFile.class)
        .hasMessageStartingWith("/etc/crio/crio.conf is not valid TOML: " + line + what);
  }
}
