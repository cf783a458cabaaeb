package io.meshinjector.templates.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A new model object with the same property values as another: the values themselves (lists, nested
 * objects) are shared, not copied. Rendering replaces what it changes instead of writing into it,
 * so a pod's containers, env vars and probes need not be copied for every admission, as a fabric8
 * builder would.
 *
 * <p>Found by reflection, once per class: every public {@code setX} with its {@code getX} or {@code
 * isX}, so a property a newer model adds is copied too. The extra properties a model keeps for
 * unknown JSON fields get a map of their own.
 */
public final class ShallowCopy {
  private static final Map<Class<?>, Copier> COPIERS = new ConcurrentHashMap<>();

  private ShallowCopy() {}

  /** A new {@code T} whose properties are {@code source}'s; null for null. */
  @SuppressWarnings("unchecked")
  public static <T> T of(T source) {
    if (source == null) {
      return null;
    }
    Copier copier = COPIERS.computeIfAbsent(source.getClass(), Copier::of);
    return (T) copier.copy(source);
  }

  /**
   * Copies of {@code a} and {@code b}, two objects of one class, without the properties that hold
   * the same instance in both (left unset, so they serialise as absent on both sides). Serialised,
   * the two copies differ exactly where {@code a} and {@code b} do: a diff of them gives the same
   * patch without serialising and walking what rendering shared. Null when either is null or their
   * classes differ.
   */
  @SuppressWarnings("unchecked")
  public static <T> Pair<T> withoutShared(T a, T b) {
    if (a == null || b == null || a.getClass() != b.getClass()) {
      return null;
    }
    Copier copier = COPIERS.computeIfAbsent(a.getClass(), Copier::of);
    return (Pair<T>) copier.withoutShared(a, b);
  }

  /** Two copies made together by {@link #withoutShared}. */
  public record Pair<T>(T a, T b) {}

  private record Property(MethodHandle getter, MethodHandle setter, boolean primitive) {}

  private record Copier(MethodHandle constructor, List<Property> properties, Property extras) {
    private static final MethodType GET = MethodType.methodType(Object.class, Object.class);
    private static final MethodType SET =
        MethodType.methodType(void.class, Object.class, Object.class);

    static Copier of(Class<?> type) {
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      try {
        Constructor<?> noArgs = type.getConstructor();
        MethodHandle constructor =
            lookup.unreflectConstructor(noArgs).asType(MethodType.methodType(Object.class));
        List<Property> properties = new ArrayList<>();
        Property extras = null;
        for (Method setter : type.getMethods()) {
          if (!isSetter(setter)) {
            continue;
          }
          String name = setter.getName().substring(3);
          Method getter = getter(type, name, setter.getParameterTypes()[0]);
          if (getter == null) {
            continue;
          }
          Property p =
              new Property(
                  lookup.unreflect(getter).asType(GET),
                  lookup.unreflect(setter).asType(SET),
                  getter.getReturnType().isPrimitive());
          if (name.equals("AdditionalProperties")
              && Map.class.isAssignableFrom(getter.getReturnType())) {
            extras = p;
          } else {
            properties.add(p);
          }
        }
        return new Copier(constructor, List.copyOf(properties), extras);
      } catch (ReflectiveOperationException e) {
        throw new IllegalArgumentException(type.getName() + " cannot be copied: " + e, e);
      }
    }

    private static boolean isSetter(Method m) {
      return m.getName().startsWith("set")
          && m.getName().length() > 3
          && m.getParameterCount() == 1
          && m.getReturnType() == void.class
          && !Modifier.isStatic(m.getModifiers());
    }

    private static Method getter(Class<?> type, String name, Class<?> valueType) {
      for (String prefix : new String[] {"get", "is"}) {
        try {
          Method m = type.getMethod(prefix + name);
          if (m.getReturnType() == valueType && !Modifier.isStatic(m.getModifiers())) {
            return m;
          }
        } catch (NoSuchMethodException e) {
          // not this spelling
        }
      }
      return null;
    }

    Object copy(Object source) {
      try {
        Object copy = constructor.invokeExact();
        for (Property p : properties) {
          // null too: a new model object starts with empty lists where the source may have none
          Object value = p.getter().invokeExact(source);
          p.setter().invokeExact(copy, value);
        }
        if (extras != null) {
          // the one value a caller adds to in place (setAdditionalProperty): not shared
          Object extra = extras.getter().invokeExact(source);
          Map<?, ?> shared = (Map<?, ?>) extra;
          if (shared != null && !shared.isEmpty()) {
            extras.setter().invokeExact(copy, (Object) new LinkedHashMap<>(shared));
          }
        }
        return copy;
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw cannotCopy(source, e);
      }
    }

    Pair<Object> withoutShared(Object a, Object b) {
      try {
        Object copyA = constructor.invokeExact();
        Object copyB = constructor.invokeExact();
        for (Property p : properties) {
          Object valueA = p.getter().invokeExact(a);
          Object valueB = p.getter().invokeExact(b);
          // a new model object starts with empty lists: set null explicitly, on both sides
          boolean shared = valueA == valueB && !p.primitive();
          p.setter().invokeExact(copyA, shared ? null : valueA);
          p.setter().invokeExact(copyB, shared ? null : valueB);
        }
        if (extras != null) {
          Object extraA = extras.getter().invokeExact(a);
          Object extraB = extras.getter().invokeExact(b);
          if (extraA != extraB) {
            extras.setter().invokeExact(copyA, extraA);
            extras.setter().invokeExact(copyB, extraB);
          }
        }
        return new Pair<>(copyA, copyB);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw cannotCopy(a, e);
      }
    }

    private static IllegalStateException cannotCopy(Object source, Throwable e) {
      return new IllegalStateException(
          "cannot copy a " + source.getClass().getName() + ": " + e, e);
    }
  }
}
