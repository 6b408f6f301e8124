package dev.sluice.flink;

import dev.sluice.HostData;
import java.lang.reflect.Array;
import java.util.Collection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How messages name an element: by which one it was (its number within its subtask, and the subtask's index), then its
 * type and size, so that a large or mutable element's text stays out. Every message of {@link SluiceAsyncFunction} that
 * speaks of an element names it through {@link #describe(int, long, Object)}.
 */
final class Elements {

    /** The number of an element that is no longer known (a timeout that raced the element's result). */
    static final long UNKNOWN = -1;

    private Elements() {
    }

    /**
     * An element for messages: {@code element 17 of subtask 2 (float[4096])}. {@code number} counts the elements the
     * subtask was given since it opened, from 0 ({@link #UNKNOWN}: {@code an element of subtask 2 (...)});
     * {@code subtask} is Flink's index of the subtask, from 0, as its metrics' {@code subtask_index}.
     */
    static String describe(int subtask, long number, @Nullable Object element) {
        return (number < 0 ? "an element" : "element " + number) + " of subtask " + subtask + " (" + content(element)
                + ")";
    }

    /**
     * An element's type and size (an array's length, host data's bytes, a collection's elements), else its type and
     * text, cut short; never an array's {@code [F@1b2c3d}.
     */
    static String content(@Nullable Object element) {
        if (element == null) {
            return "null";
        }
        if (element.getClass().isArray()) {
            return element.getClass().getComponentType().getSimpleName() + "[" + Array.getLength(element) + "]";
        }
        String simple = element.getClass().getSimpleName();
        String type = simple.isEmpty() ? element.getClass().getName() : simple; // an anonymous class has no simple name
        // A size where the type has one: a large element's text would swamp the message, a mutable one's change.
        if (element instanceof HostData h) {
            return type + " of " + h.byteSize() + " bytes";
        }
        if (element instanceof Collection<?> c) {
            return type + " of " + c.size() + " elements";
        }
        if (element instanceof Map<?, ?> m) {
            return type + " of " + m.size() + " entries";
        }
        if (element instanceof CharSequence cs) {
            return type + " of " + cs.length() + " chars";
        }
        String s = String.valueOf(element);
        s = s.length() > 80 ? s.substring(0, 77) + "..." : s;
        return s.startsWith(type) ? s : type + " " + s;
    }
}
