package io.meshinjector.plane;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The run's class order (junit-platform.properties): by name, the classes on the real node last.
 * The real node comes up with the first of them and stays, and a chart a plane-only class installs
 * must never have its pods run by a kubelet.
 */
public final class RealNodeClassesLast implements ClassOrderer {
  @Override
  public void orderClasses(ClassOrdererContext context) {
    context
        .getClassDescriptors()
        .sort(
            Comparator.comparing((ClassDescriptor d) -> onRealNode(d.getTestClass()))
                .thenComparing(d -> d.getTestClass().getName()));
  }

  static boolean onRealNode(Class<?> testClass) {
    return Arrays.stream(testClass.getDeclaredFields())
        .filter((Field f) -> Modifier.isStatic(f.getModifiers()))
        .anyMatch(f -> RealNodePlane.class.isAssignableFrom(f.getType()));
  }
}
