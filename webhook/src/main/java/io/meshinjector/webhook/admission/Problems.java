package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigInteger;
import java.util.Collection;
import java.util.List;

/**
 * Every message a caller reads when its request cannot be admitted, in one place, so that they are
 * worded alike: where the problem is (a JSON path or pointer), then what is wrong, in the caller's
 * terms rather than Jackson's or the model's.
 */
public final class Problems {
  private Problems() {}

  public static final String UNREADABLE_BODY = "the body cannot be read";
  public static final String NOT_AN_OBJECT = "the body is not a JSON object";
  public static final String NOT_A_REVIEW = "kind must be AdmissionReview";
  public static final String NO_REQUEST = "the AdmissionReview has no request";
  public static final String NO_UID = "the AdmissionReview's request has no uid";
  public static final String NO_OBJECT = "the Pod CREATE request has no object";
  public static final String NO_NAMESPACE = "the Pod has no namespace, nor has the request";

  static String unsupportedApiVersion(String apiVersion) {
    return "apiVersion '"
        + apiVersion
        + "' is not supported: send "
        + AdmissionCodec.V1
        + " or "
        + AdmissionCodec.V1BETA1;
  }

  /** A request's pod the engine cannot take, as the server answers it. */
  public static String invalidObject(InvalidPod problem) {
    return switch (problem.kind()) {
      case NOT_A_POD -> "request.object is not a valid Pod: " + problem.detail();
      case OVER_A_LIMIT -> "request.object is over a limit: " + problem.detail();
    };
  }

  /** A manifest's pod template the engine cannot take, as the CLI reports it. */
  public static String invalidTemplate(String workload, InvalidPod problem) {
    return switch (problem.kind()) {
      case NOT_A_POD -> workload + ": the pod template is not valid: " + problem.detail();
      case OVER_A_LIMIT -> workload + ": the pod template is over a limit: " + problem.detail();
    };
  }

  /** "{path} has {count} {what}, more than the limit webhook.podLimits.{key} = {limit}". */
  static String overPodLimit(String path, int count, String what, String key, int limit) {
    return path
        + " has "
        + count
        + " "
        + what
        + ", more than the limit webhook.podLimits."
        + key
        + " = "
        + limit;
  }

  /**
   * Which read limit the body broke, in the configured figures. Jackson's own message names its
   * classes and methods, which mean nothing to the caller; it carries no typed field, so the limit
   * is told apart by its wording.
   */
  static String overReadLimit(
      StreamConstraintsException e, JsonParser parser, StreamReadConstraints limits) {
    String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    String at = at(parser);
    if (message.startsWith("String value length")) {
      return "a string" + at + " is longer than " + limits.getMaxStringLength() + " characters";
    }
    if (message.contains("nesting depth")) {
      return "the JSON" + at + " is nested deeper than " + limits.getMaxNestingDepth() + " levels";
    }
    if (message.startsWith("Number value length")) {
      return "a number" + at + " is longer than " + limits.getMaxNumberLength() + " digits";
    }
    if (message.startsWith("Name length")) {
      return "a field name" + at + " is longer than " + limits.getMaxNameLength() + " characters";
    }
    return "the body is over a read limit" + at;
  }

  /** " at /json/pointer" where the parser was, or nothing when it is not known. */
  private static String at(JsonParser parser) {
    if (parser != null && parser.getParsingContext() != null) {
      String pointer = parser.getParsingContext().pathAsPointer().toString();
      if (!pointer.isEmpty()) {
        // a nesting-depth pointer is as deep as the limit; its start says where
        return " at " + (pointer.length() > 80 ? pointer.substring(0, 80) + "..." : pointer);
      }
    }
    return "";
  }

  /**
   * "the body is not valid JSON: ..." with Jackson's syntax message, less the parts that are about
   * Jackson: the source description and feature names in backticks.
   */
  static String notJson(JsonProcessingException e) {
    String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    if (message.startsWith("Trailing token")) {
      message = "more JSON follows the AdmissionReview";
    }
    int marker = message.indexOf(" (start marker at");
    if (marker >= 0) {
      message = message.substring(0, marker);
    }
    if (message.isBlank() || message.contains("`") || message.contains("[Source")) {
      message = "it is malformed";
    }
    JsonLocation where = e.getLocation();
    if (where != null && where.getLineNr() > 0) {
      message += " (line " + where.getLineNr() + ", column " + where.getColumnNr() + ")";
    }
    return "the body is not valid JSON: " + firstLine(message);
  }

  /** "{path} must be {what}", from where Jackson stopped and the type it wanted there. */
  static String mismatch(JsonMappingException e) {
    String path = path(e.getPath());
    Class<?> wanted = null;
    if (e instanceof MismatchedInputException m) {
      wanted = m.getTargetType();
    } else if (e instanceof ValueInstantiationException v && v.getType() != null) {
      wanted = v.getType().getRawClass();
    }
    String where = path.isEmpty() ? "the Pod" : path;
    return wanted == null
        ? where + " has a value of the wrong type"
        : where + " must be " + jsonFor(wanted);
  }

  private static String path(List<JsonMappingException.Reference> references) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference r : references) {
      if (r.getFieldName() != null) {
        if (path.length() > 0) {
          path.append('.');
        }
        path.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        path.append('[').append(r.getIndex()).append(']');
      }
    }
    return firstLine(path.toString());
  }

  /** The JSON a value of {@code type} is read from, in the caller's terms ("a list"). */
  private static String jsonFor(Class<?> type) {
    if (Collection.class.isAssignableFrom(type) || (type.isArray() && type != byte[].class)) {
      return "a list";
    }
    if (type == String.class || type == Character.class || type == char.class) {
      return "a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == Integer.class
        || type == Long.class
        || type == Short.class
        || type == Byte.class
        || type == int.class
        || type == long.class
        || type == short.class
        || type == byte.class
        || type == BigInteger.class) {
      return "an integer";
    }
    if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
      return "a number";
    }
    if (type == IntOrString.class) {
      return "an integer or a string";
    }
    if (type == Quantity.class) {
      return "a quantity such as 100m or 128Mi";
    }
    if (type.isEnum()) {
      return "one of its allowed values";
    }
    return "an object";
  }

  /** The first line of {@code message}, at most 300 characters of it. */
  static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    String line = message.lines().findFirst().orElse("");
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }
}
