package io.meshinjector.templates.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every property a model class has is carried over, by reference, so a property a newer fabric8
 * model adds cannot be dropped from a rendered pod (the diff would then remove it from the pod).
 */
class ShallowCopyTest {

  @ParameterizedTest
  @ValueSource(classes = {Pod.class, ObjectMeta.class, PodSpec.class, Container.class})
  void everyPropertyIsCarriedOverByReference(Class<?> type) throws Exception {
    Object source = type.getConstructor().newInstance();
    List<Method> getters = new ArrayList<>();
    for (Method setter : type.getMethods()) {
      if (!setter.getName().startsWith("set")
          || setter.getParameterCount() != 1
          || Modifier.isStatic(setter.getModifiers())
          || setter.getName().equals("setAdditionalProperty")) {
        continue;
      }
      Method getter = getter(type, setter.getName().substring(3));
      if (getter == null) {
        continue;
      }
      setter.invoke(source, valueFor(setter.getParameterTypes()[0], setter.getName()));
      getters.add(getter);
    }
    assertThat(getters).as("properties found on " + type.getSimpleName()).hasSizeGreaterThan(1);

    Object copy = ShallowCopy.of(source);

    assertThat(copy).isNotSameAs(source).isEqualTo(source);
    for (Method getter : getters) {
      Object value = getter.invoke(source);
      if (getter.getName().equals("getAdditionalProperties")) {
        assertThat(getter.invoke(copy))
            .as("a map of its own: setAdditionalProperty writes into it")
            .isNotSameAs(value)
            .isEqualTo(value);
      } else {
        assertThat(getter.invoke(copy)).as(getter.getName()).isSameAs(value);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(classes = {Pod.class, PodSpec.class})
  void aPropertyTheSourceLeavesUnsetStaysUnset(Class<?> type) throws Exception {
    Object source = type.getConstructor().newInstance();
    for (Method m : type.getMethods()) {
      if (m.getName().startsWith("set")
          && m.getParameterCount() == 1
          && !m.getParameterTypes()[0].isPrimitive()
          && !m.getName().startsWith("setAdditional")) {
        m.invoke(source, (Object) null);
      }
    }
    assertThat(ShallowCopy.of(source)).isEqualTo(source);
  }

  @Test
  void withoutSharedLeavesOutWhatBothHoldAndKeepsWhatDiffers() {
    Map<String, String> labels = new LinkedHashMap<>(Map.of("app", "shop"));
    ObjectMeta a = new ObjectMeta();
    a.setName("p");
    a.setLabels(labels);
    a.setAnnotations(new LinkedHashMap<>(Map.of("x", "1")));
    ObjectMeta b = ShallowCopy.of(a);
    b.setAnnotations(new LinkedHashMap<>(Map.of("x", "2")));
    b.setNamespace("shop");

    ShallowCopy.Pair<ObjectMeta> pair = ShallowCopy.withoutShared(a, b);

    assertThat(pair.a().getName()).isNull();
    assertThat(pair.b().getName()).isNull();
    assertThat(pair.a().getLabels()).isNull();
    assertThat(pair.b().getLabels()).isNull();
    assertThat(pair.a().getAnnotations()).isSameAs(a.getAnnotations());
    assertThat(pair.b().getAnnotations()).isSameAs(b.getAnnotations());
    assertThat(pair.a().getNamespace()).isNull();
    assertThat(pair.b().getNamespace()).isEqualTo("shop");
    assertThat(a.getName()).as("the sources are not written").isEqualTo("p");
    assertThat(b.getLabels()).isSameAs(labels);
  }

  @Test
  void withoutSharedKeepsEqualValuesThatAreNotTheSameInstance() {
    ObjectMeta a = new ObjectMeta();
    a.setName(new String("p"));
    ObjectMeta b = new ObjectMeta();
    b.setName(new String("p"));

    ShallowCopy.Pair<ObjectMeta> pair = ShallowCopy.withoutShared(a, b);

    assertThat(pair.a().getName()).isEqualTo("p");
    assertThat(pair.b().getName()).isEqualTo("p");
  }

  @Test
  void withoutSharedNeedsTwoObjectsOfOneClass() {
    assertThat(ShallowCopy.withoutShared(new ObjectMeta(), null)).isNull();
    assertThat(ShallowCopy.withoutShared(null, new ObjectMeta())).isNull();
    assertThat(ShallowCopy.<Object>withoutShared(new ObjectMeta(), new PodSpec())).isNull();
  }

  private static Method getter(Class<?> type, String name) {
    for (String prefix : new String[] {"get", "is"}) {
      try {
        return type.getMethod(prefix + name);
      } catch (NoSuchMethodException e) {
        // the other spelling
      }
    }
    return null;
  }

  /** A value unlike the property's default, of its type. */
  private static Object valueFor(Class<?> type, String name) throws Exception {
    if (type == String.class) {
      return "v-" + name;
    }
    if (type == Boolean.class || type == boolean.class) {
      return Boolean.TRUE;
    }
    if (type == Integer.class || type == int.class) {
      return 7;
    }
    if (type == Long.class || type == long.class) {
      return 7L;
    }
    if (List.class.isAssignableFrom(type)) {
      return new ArrayList<>(List.of());
    }
    if (Map.class.isAssignableFrom(type)) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("k-" + name, "v");
      return m;
    }
    return type.getConstructor().newInstance();
  }
}
