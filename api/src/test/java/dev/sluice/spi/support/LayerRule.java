package dev.sluice.spi.support;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The layering of a native backend's package, checked on its compiled classes: bindings (raw native calls with status
 * checks), handles (owned native objects) and SPI implementations, each layer using only its own and lower ones. A
 * backend names its layers by a rule ({@code layerOf}, from a top-level class's simple name); a reference from a class
 * to a class of a higher layer of the same package is a violation. Nested classes count as their top-level class.
 */
public final class LayerRule {

    /** The layers, lowest first. */
    public enum Layer {
        /** Raw native calls and their status checks. */
        BINDINGS,
        /** Owned native objects. */
        HANDLES,
        /** Implementations of {@code dev.sluice.spi}. */
        SPI
    }

    private LayerRule() {
    }

    /**
     * The top-level classes of package {@code packageName} compiled into {@code classes}, each with the other classes of
     * the package its class files (nested classes included) refer to.
     */
    public static Map<String, Set<String>> references(Path classes, String packageName) throws IOException {
        Map<String, Set<String>> refs = new TreeMap<>();
        referencesUnder(classes, packageName).forEach((from, tos) -> {
            if (from.indexOf('.') < 0) { // a class of the package itself, not of a package under it
                refs.put(from, tos.stream().filter(to -> to.indexOf('.') < 0).collect(Collectors.toCollection(TreeSet::new)));
            }
        });
        return refs;
    }

    /**
     * The top-level classes of {@code rootPackage} and every package under it compiled into {@code classes}, named
     * relative to {@code rootPackage} ({@code "DeviceStream"}, {@code "engine.StreamOrder"}), each with the classes of
     * those packages its class files (nested classes included) refer to. {@code module-info} and {@code package-info}
     * are left out.
     */
    public static Map<String, Set<String>> referencesUnder(Path classes, String rootPackage) throws IOException {
        String prefix = rootPackage.replace('.', '/') + "/";
        Map<String, Set<String>> refs = new TreeMap<>();
        try (Stream<Path> files = Files.walk(classes.resolve(prefix))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                ClassModel model = ClassFile.of().parse(Files.readAllBytes(f));
                String self = relative(topLevel(model.thisClass().asInternalName()), prefix);
                if (self.endsWith("package-info") || self.equals("module-info")) {
                    continue;
                }
                Set<String> mine = refs.computeIfAbsent(self, k -> new TreeSet<>());
                for (PoolEntry e : model.constantPool()) {
                    if (e instanceof ClassEntry c) {
                        String name = c.asInternalName();
                        int l = name.indexOf('L');
                        if (name.startsWith("[") && l >= 0) {
                            name = name.substring(l + 1, name.length() - 1);
                        }
                        if (name.startsWith(prefix)) {
                            String other = relative(topLevel(name), prefix);
                            if (!other.equals(self)) {
                                mine.add(other);
                            }
                        }
                    }
                }
            }
        }
        return refs;
    }

    private static String relative(String internalName, String prefix) {
        return internalName.substring(prefix.length()).replace('/', '.');
    }

    /** {@link #references(Path, String)} of the package of {@code anchor}, read where {@code anchor} was loaded from. */
    public static Map<String, Set<String>> references(Class<?> anchor) throws IOException {
        try {
            Path classes = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            return references(classes, anchor.getPackageName());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
    }

    /** The top-level classes of {@code anchor}'s package, grouped by the layer {@code layerOf} gives them. */
    public static Map<Layer, Set<String>> classesByLayer(Class<?> anchor, Function<String, Layer> layerOf) throws IOException {
        Map<Layer, Set<String>> byLayer = new TreeMap<>();
        for (String c : references(anchor).keySet()) {
            byLayer.computeIfAbsent(layerOf.apply(c), k -> new TreeSet<>()).add(c);
        }
        return byLayer;
    }

    private static String topLevel(String name) {
        int d = name.indexOf('$');
        return d < 0 ? name : name.substring(0, d);
    }

    /** Every reference from a class to a class of a higher layer, as "A (HANDLES) names B (SPI)". */
    public static <L extends Comparable<L>> List<String> violations(Map<String, Set<String>> references,
            Function<String, L> layerOf) {
        List<String> found = new ArrayList<>();
        references.forEach((from, tos) -> {
            L a = layerOf.apply(from);
            for (String to : tos) {
                L b = layerOf.apply(to);
                if (b.compareTo(a) > 0) {
                    found.add(from + " (" + a + ") names " + to + " (" + b + ")");
                }
            }
        });
        return found;
    }
}
