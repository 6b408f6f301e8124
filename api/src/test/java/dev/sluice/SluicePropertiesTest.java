package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The system properties are named once, in {@link SluiceProperties}, and documented once, in the guide's "System
 * properties" tables: the two must list the same names in the same groups, and no main source file may spell a
 * {@code "sluice.} property name of its own.
 */
class SluicePropertiesTest {

    /** The repository root: surefire runs in the module's folder. */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** The heading of the measurement table in CONTRIBUTING.md. */
    private static final String MEASUREMENT_HEADING = "### For measuring and testing Sluice";

    private static final Pattern TABLE_NAME = Pattern.compile("^\\| `(sluice\\.[A-Za-z0-9.]+)` \\|");
    private static final Pattern READ_OR_WRITE = Pattern.compile(
            "(getProperty|getBoolean|getInteger|getLong|setProperty|clearProperty)\\(\\s*\"sluice\\.");
    private static final Pattern LITERAL = Pattern.compile("\"(sluice\\.[A-Za-z0-9.]*)");

    @Test
    void theGuideListsEveryUserSettingAndNothingElse() {
        assertEquals(names(SluiceProperties.class), guideTable(false));
    }

    @Test
    void contributingListsEveryMeasurementKnobAndNothingElse() {
        assertEquals(names(SluiceProperties.Measurement.class), guideTable(true));
    }

    @Test
    void noMainSourceSpellsAPropertyNameOutsideSluiceProperties() {
        List<String> found = new ArrayList<>();
        Set<String> known = new TreeSet<>(names(SluiceProperties.class));
        known.addAll(names(SluiceProperties.Measurement.class));
        for (Path file : mainSources()) {
            if (file.getFileName().toString().equals("SluiceProperties.java")) {
                continue;
            }
            List<String> lines = read(file);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                Matcher m = LITERAL.matcher(line);
                while (m.find()) {
                    // A property read or written with a literal name, or any literal spelling a known property name.
                    // Other "sluice." strings (Micrometer meter names, say) are not properties.
                    if (READ_OR_WRITE.matcher(line).find() || known.contains(m.group(1))) {
                        found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + line.strip());
                    }
                }
            }
        }
        assertTrue(found.isEmpty(), "use the constant of SluiceProperties instead:\n" + String.join("\n", found));
    }

    @Test
    void everyConstantIsReadByMainCode() {
        StringBuilder all = new StringBuilder();
        for (Path file : mainSources()) {
            if (!file.getFileName().toString().equals("SluiceProperties.java")) {
                read(file).forEach(l -> all.append(l).append('\n'));
            }
        }
        List<String> unused = new ArrayList<>();
        for (Class<?> group : List.of(SluiceProperties.class, SluiceProperties.Measurement.class)) {
            for (Field f : constants(group)) {
                if (!Pattern.compile("\\b" + f.getName() + "\\b").matcher(all).find()) {
                    unused.add(group.getSimpleName() + "." + f.getName());
                }
            }
        }
        assertTrue(unused.isEmpty(), "constants nothing reads (delete them, or read them): " + unused);
    }

    @Test
    void theScanFindsALiteralWhereOneIs() {
        // guards the scan itself: a pattern that matched nothing would pass the test above on any code
        Matcher m = LITERAL.matcher("Long.getLong(\"sluice.engine.pollGapNanos\", 1_000L)");
        assertTrue(m.find());
        assertEquals("sluice.engine.pollGapNanos", m.group(1));
        assertTrue(mainSources().size() > 100, "main sources found under " + ROOT + ": " + mainSources().size());
    }

    /** The property names in {@code group}'s public constants. */
    private static Set<String> names(Class<?> group) {
        Set<String> names = new TreeSet<>();
        for (Field f : constants(group)) {
            try {
                String value = (String) f.get(null);
                if (value.startsWith("sluice.")) {
                    names.add(value);
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        assertTrue(!names.isEmpty(), group + " has no property constants");
        return names;
    }

    private static List<Field> constants(Class<?> group) {
        List<Field> fields = new ArrayList<>();
        for (Field f : group.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType() == String.class) {
                fields.add(f);
            }
        }
        return fields;
    }

    /**
     * The first-column names of the guide's user table ({@code measurement} false: docs/guide.md, "System properties") or
     * of the measurement table (CONTRIBUTING.md, which keeps what is not for users), up to the next heading.
     */
    private static Set<String> guideTable(boolean measurement) {
        String file = measurement ? "CONTRIBUTING.md" : "docs/guide.md";
        String heading = measurement ? MEASUREMENT_HEADING : "## System properties";
        List<String> lines = read(ROOT.resolve(file));
        int start = lines.indexOf(heading);
        assertTrue(start >= 0, file + " has no '" + heading + "' section");
        List<String> rows = new ArrayList<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("#"); i++) {
            Matcher m = TABLE_NAME.matcher(lines.get(i));
            if (m.find()) {
                rows.add(m.group(1));
            }
        }
        Set<String> names = new TreeSet<>(rows);
        assertEquals(rows.size(), names.size(), "a property is listed twice: " + rows);
        return names;
    }

    private static List<Path> mainSources() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> {
                        String rel = ROOT.relativize(p).toString().replace('\\', '/');
                        return rel.contains("/src/main/java/") && !rel.contains("/target/") && !rel.startsWith(".");
                    })
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
