package dev.sluice.flink;

import dev.sluice.HostData;
import java.lang.reflect.Array;
import java.util.Collection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** How messages name an element: by its type and size, so that a large or mutable element's text stays out. */
final class Elements {

    private Elements() {
    }

    /**
     * A short description of an element for messages: its type and size (an array's length, host data's bytes, a
     * collection's elements), else its type and text, cut short; never an array's {@code [F@1b2c3d}.
     */
    static String describe(@Nullable Object element) {
        if (element == null) {
            return "element null";
        }
        if (element.getClass().isArray()) {
            return "element " + element.getClass().getComponentType().getSimpleName() + "[" + Array.getLength(element) + "]";
        }
        String simple = element.getClass().getSimpleName();
        String type = simple.isEmpty() ? element.getClass().getName() : simple; // an anonymous class has no simple name
        // A size where the type has one: a large element's text would swamp the message, a mutable one's change.
        if (element instanceof HostData h) {
            return "element " + type + " of " + h.byteSize() + " bytes";
        }
        if (element instanceof Collection<?> c) {
            return "element " + type + " of " + c.size() + " elements";
        }
        if (element instanceof Map<?, ?> m) {
            return "element " + type + " of " + m.size() + " entries";
        }
        if (element instanceof CharSequence cs) {
            return "element " + type + " of " + cs.length() + " chars";
        }
        String s = String.valueOf(element);
        s = s.length() > 80 ? s.substring(0, 77) + "..." : s;
        return "element " + (s.startsWith(type) ? s : type + " " + s);
    }
}
