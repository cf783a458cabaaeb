package io.meshinjector.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.probe.RuntimeCni.ConfigFile;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The runtime's CNI dirs from config text alone, no host involved. */
class RuntimeCniTest {
  @ParameterizedTest(name = "{0} ~ {1}: {2}")
  @CsvSource({
    "/etc/containerd/conf.d/*.toml, 50-cni.toml, true",
    "/etc/containerd/conf.d/*.toml, 50-cni.conf, false",
    "/etc/containerd/conf.d/?0-*.toml, 50-cni.toml, true",
    "/etc/containerd/conf.d/?0-*.toml, 5-cni.toml, false",
    "/etc/containerd/conf.d/*, .hidden, true",
    "/etc/containerd/conf.d/a*b*c, abxbyc, true",
    "/etc/containerd/conf.d/a*b*c, abxbyd, false",
    "/etc/containerd/conf.d/plain.toml, plain.toml, true",
  })
  void matchesImportGlobs(String path, String name, boolean matches) {
    assertThat(RuntimeCni.matchesImport(path, name)).isEqualTo(matches);
  }

  @Test
  void aLaterImportWinsAndEveryFileThatSetADirIsNamed() throws MalformedHostFile {
    String main = RuntimeCni.CONTAINERD_CONFIG;
    List<ConfigFile> files =
        List.of(
            new ConfigFile(
                main,
                RuntimeConfig.parse(
                    main,
                    "version = 2\nimports = [\"conf.d/*.toml\"]\n"
                        + "[plugins.\"io.containerd.grpc.v1.cri\".cni]\n"
                        + "bin_dir = \"/opt/cni/bin/\"\nconf_dir = \"/etc/cni/net.d\"\n")),
            new ConfigFile(
                "/etc/containerd/conf.d/50.toml",
                RuntimeConfig.parse(
                    "50.toml",
                    "[plugins.'io.containerd.cri.v1.runtime'.cni]\nbin_dirs = ['/a/']\n")));

    RuntimeCni cni = RuntimeCni.containerd(ProbeOptions.defaults(), files);

    assertThat(RuntimeCni.containerdImports(files.get(0).doc())).containsExactly("conf.d/*.toml");
    assertThat(RuntimeCni.importPath("conf.d/*.toml")).isEqualTo("/etc/containerd/conf.d/*.toml");
    assertThat(cni.binDirs()).containsExactly("/a");
    assertThat(cni.confDir()).isEqualTo("/etc/cni/net.d");
    assertThat(cni.source()).isEqualTo(main + ", /etc/containerd/conf.d/50.toml");
  }
}
