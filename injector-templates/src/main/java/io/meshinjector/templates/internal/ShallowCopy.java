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

  private record Property(MethodHandle getter, MethodHandle setter) {}

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
                  lookup.unreflect(getter).asType(GET), lookup.unreflect(setter).asType(SET));
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
        throw new IllegalStateException(
            "cannot copy a " + source.getClass().getName() + ": " + e, e);
      }
    }
  }
}
