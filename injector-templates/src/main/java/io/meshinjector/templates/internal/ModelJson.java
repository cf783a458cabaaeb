package io.meshinjector.templates.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;

/** The one mapper the renderer converts between the fabric8 model and JSON trees with. */
public final class ModelJson {
  // Blackbird: generated accessors instead of reflection over the fabric8 model, the most common
  // top frame of an admission under load
  public static final ObjectMapper MAPPER =
      new ObjectMapper().registerModule(new BlackbirdModule());

  private ModelJson() {}
}
