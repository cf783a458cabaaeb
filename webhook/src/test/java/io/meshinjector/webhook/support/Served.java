package io.meshinjector.webhook.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.server.ServerPorts;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A server started through {@code serve} as a user starts it, on free ports, with a self-signed set
 * written into an empty {@code --tls-dir}.
 */
public record Served(ConfigurableApplicationContext context, int https, int management, Path ca) {

  /**
   * @param dir an empty folder for the config and the certificates
   * @param configYaml the {@code --config} file's text
   */
  public static Served start(Path dir, String configYaml) throws Exception {
    return start(dir, configYaml, new Path[0]);
  }

  /**
   * @param moreClusters cluster files read after examples/cluster.yaml
   */
  public static Served start(Path dir, String configYaml, Path... moreClusters) throws Exception {
    Path tls = dir.resolve("tls");
    Path config = dir.resolve("config.yaml");
    NoDrain.config(config, configYaml);
    var cli = MeshInjector.commandLine();
    List<String> args =
        new ArrayList<>(
            List.of(
                "serve",
                "--port=0",
                "--metrics-port=0",
                "--tls-dir=" + tls,
                "--config=" + config,
                "--cluster=" + Reviews.example("cluster.yaml")));
    for (Path more : moreClusters) {
      args.add("--cluster=" + more);
    }
    int code = cli.execute(args.toArray(String[]::new));
    assertThat(code).as("serve's exit code").isZero();
    ConfigurableApplicationContext context = ServedContexts.last();
    ServerPorts ports = context.getBean(ServerPorts.class);
    return new Served(context, ports.https(), ports.management(), tls.resolve("ca.crt"));
  }

  public URI uri(String path) {
    return URI.create("https://localhost:" + https + path);
  }
}
