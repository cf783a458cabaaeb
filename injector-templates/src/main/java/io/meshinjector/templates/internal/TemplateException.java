package io.meshinjector.templates.internal;

/** A template refers to a value nobody provides, or is malformed. */
public class TemplateException extends RuntimeException {
  public TemplateException(String message) {
    super(message);
  }
}
