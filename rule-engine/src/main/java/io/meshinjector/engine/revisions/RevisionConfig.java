package io.meshinjector.engine.revisions;

import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;

/**
 * The config's {@code revisions} section: who this release is among the injectors of a cluster.
 *
 * @param name this release's revision
 * @param namespaceLabels whether this release's elected replica writes the namespaces' routing
 *     label
 * @param createDefaultTag whether it creates the tag {@code default} when the cluster has none
 */
public record RevisionConfig(String name, boolean namespaceLabels, boolean createDefaultTag) {

  /** One release, the only one: what every config without a {@code revisions} section means. */
  public static final RevisionConfig SINGLE = new RevisionConfig(RevisionNames.DEFAULT, true, true);

  public RevisionConfig {
    if (!RevisionNames.DEFAULT.equals(name)) {
      RevisionNames.problem(name)
          .ifPresent(
              p -> {
                throw new ConfigException("config key 'revisions.name': " + p);
              });
    }
  }

  /**
   * @throws ConfigException naming the key that is wrong
   */
  public static RevisionConfig from(MeshConfig config) {
    ConfigSection s = config.section("revisions");
    RevisionConfig read =
        new RevisionConfig(s.text("name"), s.bool("namespaceLabels"), s.bool("createDefaultTag"));
    s.done();
    return read;
  }
}
