package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.support.LayerRule;
import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.FieldModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.LineNumber;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.AccessFlag;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shape of the api module, checked on its compiled classes: what its module exports, which level each class
 * belongs to (a class names only classes of its own level or lower ones), no import loop across its internal packages,
 * the size of its files and of the methods of the façade, the engine and the recorders, the size of the import loops
 * inside the engine, and that what the engine and the recorders hand the façade is typed (never an {@code Object} it
 * would cast back).
 *
 * <p>The levels, lowest first: the vocabulary of {@code dev.sluice} (values, options, enums, exceptions); the SPI; the
 * backend kit ({@code spi.support}); the engine and the recorders ({@code engine}, {@code observe}, which does not name
 * the engine); the façade (the handles users hold, and the package-private helpers that check their arguments); the
 * kernel language. A new class of {@code dev.sluice} is vocabulary unless listed in {@link #FACADE}.
 */
class ApiLayersTest {

    /** The levels, lowest first. */
    enum Level {
        VOCABULARY, SPI, KIT, ENGINE, FACADE, KERNEL
    }

    /** The classes of {@code dev.sluice} above the vocabulary: the handles and what checks their arguments. */
    private static final Set<String> FACADE = Set.of("DeviceContext", "DeviceStream", "SyncStream", "DeviceFuture",
            "DeviceBuffer", "HostBuffer", "HostBufferPool", "HostData", "HostSegment", "DeviceEvent", "DeviceFunction", "DeviceGraph",
            "RepeatedWork", "DeviceListener", "Trace", "Observers", "LaunchLimits", "LaunchArguments", "Backends", "PitchedCopy");

    /** The native bindings, a list of native calls each, exempt from the file size limit. */
    private static final Set<String> BINDINGS = Set.of("Cu.java", "HipApi.java");

    private static final int MAX_FILE_LINES = 800;
    private static final int MAX_FACADE_METHOD_LINES = 40;
    /** A method of the engine or the recorders does one job that a reader follows on one screen. */
    private static final int MAX_ENGINE_METHOD_LINES = 60;
    /**
     * The most files of the engine that may name each other in a loop (a strongly connected component of its reference
     * graph): a change to one of them can need a change to any other, so such a loop is what a reader must hold at once.
     */
    private static final int MAX_ENGINE_LOOP_FILES = 8;

    /**
     * Known exceptions to {@link #MAX_ENGINE_METHOD_LINES}, each with its length now, which it may not grow past: methods
     * of the engine classes being reorganised ({@code StreamEnqueuer}, {@code StreamClaims}, {@code Recording},
     * {@code HoldingStream}, {@code ReplayedWork}, {@code Operation}, {@code UseTracker}, {@code ContextRuntime}) that are
     * over the limit until they are split, as {@code "engine.Class.method"}. None is now. The list is to stay empty: an
     * entry for a method that is gone or within the limit fails the test, so that it is removed.
     */
    private static final Map<String, Integer> ENGINE_METHODS_OVER_THE_LIMIT = Map.of();

    /**
     * Known exception to {@link #MAX_ENGINE_LOOP_FILES}: the size of the engine's largest import loop, which it may not grow
     * past; 0 now that every loop is within the limit. The largest is the stream's enqueue path with its claims, waits,
     * memory and recordings, and the context's runtime and resources (7 files); below it the stream's order, the completion
     * queue and thread, the operation and {@code ContextState}, the context's state that they read (6). The test fails
     * once a loop is over the limit, naming its files.
     */
    private static final int KNOWN_ENGINE_LOOP_FILES = 0;

    static Level levelOf(String name) {
        if (name.startsWith("spi.support.")) {
            return Level.KIT;
        }
        if (name.startsWith("spi.")) {
            return Level.SPI;
        }
        if (name.startsWith("engine.") || name.startsWith("observe.")) {
            return Level.ENGINE;
        }
        if (name.startsWith("kernel.")) {
            return Level.KERNEL;
        }
        if (name.contains(".")) {
            throw new AssertionError(name + " is in a package no level names: place it in ApiLayersTest");
        }
        return FACADE.contains(name) ? Level.FACADE : Level.VOCABULARY;
    }

    private static Path classes() throws Exception {
        return Path.of(DeviceContext.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static Map<String, Set<String>> references() throws Exception {
        return LayerRule.referencesUnder(classes(), "dev.sluice");
    }

    @Test
    void theModuleExportsExactlyTheVocabularyAndFacadeTheSpiItsKitAndTheKernelLanguage() throws Exception {
        ModuleDescriptor d;
        try (InputStream in = Files.newInputStream(classes().resolve("module-info.class"))) {
            d = ModuleDescriptor.read(in);
        }
        assertEquals("dev.sluice", d.name());
        Set<String> exports = d.exports().stream().peek(e -> assertTrue(!e.isQualified(), e + " is qualified"))
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(Set.of("dev.sluice", "dev.sluice.spi", "dev.sluice.spi.support", "dev.sluice.kernel"), exports);
        assertTrue(Files.isDirectory(classes().resolve("dev/sluice/engine")) && Files.isDirectory(classes().resolve("dev/sluice/observe")),
                "the internal packages are in the module, not exported");
        assertEquals(Set.of("dev.sluice.spi.Backend"), d.uses());
        assertTrue(d.opens().isEmpty(), "opens nothing: " + d.opens());
    }

    @Test
    void noClassNamesAClassOfAHigherLevel() throws Exception {
        Map<String, Set<String>> refs = references();
        assertTrue(refs.keySet().containsAll(Set.of("DeviceStream", "engine.StreamEnqueuer", "observe.Tracer", "spi.Backend",
                "spi.support.EventPool", "kernel.Kernels", "DType")), "the classes are read: " + refs.keySet());
        List<String> violations = LayerRule.violations(refs, ApiLayersTest::levelOf);
        assertEquals(List.of(), violations);
    }

    @Test
    void theRecordersNameNothingOfTheEngine() throws Exception {
        List<String> found = new ArrayList<>();
        references().forEach((from, tos) -> {
            if (from.startsWith("observe.")) {
                tos.stream().filter(t -> t.startsWith("engine.")).forEach(t -> found.add(from + " names " + t));
            }
        });
        assertEquals(List.of(), found);
    }

    @Test
    void noImportLoopCrossesOutOfTheEngineTheRecordersTheSpiOrItsKit() throws Exception {
        Map<String, Set<String>> refs = references();
        List<String> found = new ArrayList<>();
        for (Set<String> component : stronglyConnected(refs)) {
            Set<String> packages = component.stream().map(ApiLayersTest::packageOf).collect(Collectors.toSet());
            boolean internal = packages.stream().anyMatch(p -> Set.of("engine", "observe", "spi", "spi.support").contains(p));
            if (internal && packages.size() > 1) {
                found.add(component.toString());
            }
        }
        assertEquals(List.of(), found, "import loops across packages");
    }

    private static String packageOf(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(0, dot);
    }

    /** Tarjan's strongly connected components of the reference graph. */
    private static List<Set<String>> stronglyConnected(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] next = {0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, graph, index, low, stack, onStack, out, next);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
            Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> out, int[] next) {
        index.put(v, next[0]);
        low.put(v, next[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, out, next);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            out.add(component);
        }
    }

    @Test
    void noSourceFileOfAnyModuleIsOverTheLimit() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent(); // the tests run in the api module's directory
        List<String> over = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path main : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(main)) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                        long lines;
                        try (Stream<String> l = Files.lines(f)) {
                            lines = l.count();
                        }
                        if (lines > MAX_FILE_LINES && !BINDINGS.contains(f.getFileName().toString())) {
                            over.add(root.relativize(f) + ": " + lines + " lines");
                        }
                    }
                }
            }
        }
        assertTrue(root.resolve("api/src/main/java").toFile().isDirectory(), "found the modules under " + root);
        assertEquals(List.of(), over);
    }

    @Test
    void noMethodOfTheFacadeIsOverTheLimit() throws Exception {
        List<String> over = new ArrayList<>();
        for (String name : FACADE) {
            Path file = classes().resolve("dev/sluice/" + name + ".class");
            ClassModel model = ClassFile.of().parse(Files.readAllBytes(file));
            for (MethodModel m : model.methods()) {
                int lines = sourceLines(m);
                if (lines > MAX_FACADE_METHOD_LINES) {
                    over.add(name + "." + m.methodName().stringValue() + ": " + lines + " lines");
                }
            }
        }
        assertEquals(List.of(), over);
    }

    @Test
    void theStressTestsHarnessIsTestCodeNotPartOfTheModule() throws Exception {
        Path harness = Path.of(dev.sluice.engine.StressProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(!harness.equals(classes()) && Files.notExists(classes().resolve("dev/sluice/engine/StressProbe.class")),
                "StressProbe is compiled with the tests (" + harness + "), not into the module's classes");
    }

    @Test
    void noMethodOfTheEngineOrTheRecordersIsOverTheLimit() throws Exception {
        Map<String, Integer> over = new TreeMap<>();
        for (String pkg : List.of("engine", "observe")) {
            try (Stream<Path> files = Files.walk(classes().resolve("dev/sluice/" + pkg))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                    ClassModel model = ClassFile.of().parse(Files.readAllBytes(f));
                    String owner = model.thisClass().asInternalName().substring("dev/sluice/".length()).replace('/', '.');
                    for (MethodModel m : model.methods()) {
                        int lines = sourceLines(m);
                        if (lines > MAX_ENGINE_METHOD_LINES) {
                            over.merge(owner + "." + m.methodName().stringValue(), lines, Math::max);
                        }
                    }
                }
            }
        }
        List<String> problems = new ArrayList<>();
        over.forEach((method, lines) -> {
            Integer known = ENGINE_METHODS_OVER_THE_LIMIT.get(method);
            if (known == null || lines > known) {
                problems.add(method + ": " + lines + " lines, over " + (known == null ? MAX_ENGINE_METHOD_LINES
                        : known + " (its known length)"));
            }
        });
        ENGINE_METHODS_OVER_THE_LIMIT.forEach((method, lines) -> {
            if (!over.containsKey(method)) {
                problems.add(method + " is listed as over the limit but is gone or at most " + MAX_ENGINE_METHOD_LINES
                        + " lines now: remove it from ENGINE_METHODS_OVER_THE_LIMIT");
            }
        });
        assertEquals(List.of(), problems, "methods of the engine and the recorders over " + MAX_ENGINE_METHOD_LINES
                + " lines");
    }

    /**
     * What the engine and the recorders hand the façade is typed: no member the façade can reach (public or protected, of
     * a public class) returns {@code Object} or a type over {@code Object} ({@code List<Object>}), or takes a callback
     * over {@code Object} ({@code Function<Object, R>}), which would hand it one: the façade would have to cast it back to
     * the handle it gave. The engine holds a public handle as an interface it declares ({@code PublicStream},
     * {@code PublicMemory}). What the façade only hands over (kept reachable, named in a message) may be an
     * {@code Object}.
     */
    @Test
    void theEngineAndTheRecordersHandTheFacadeNoObject() throws Exception {
        List<String> found = new ArrayList<>();
        int members = 0;
        for (String pkg : List.of("engine", "observe")) {
            try (Stream<Path> files = Files.walk(classes().resolve("dev/sluice/" + pkg))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                    ClassModel model = ClassFile.of().parse(Files.readAllBytes(f));
                    if (!model.flags().has(AccessFlag.PUBLIC)) {
                        continue;
                    }
                    String owner = model.thisClass().asInternalName().substring("dev/sluice/".length()).replace('/', '.');
                    for (MethodModel m : model.methods()) {
                        if (reachable(m.flags()) && !m.flags().has(AccessFlag.SYNTHETIC)) {
                            members++;
                            String sig = m.findAttribute(Attributes.signature()).map(a -> a.signature().stringValue())
                                    .orElse(m.methodType().stringValue());
                            sig = withoutTypeParameters(sig);
                            int close = sig.indexOf(')');
                            if (sig.substring(close + 1).contains(OBJECT) || insideTypeArguments(sig.substring(1, close))) {
                                found.add(owner + "." + m.methodName().stringValue() + " " + sig);
                            }
                        }
                    }
                    for (FieldModel fm : model.fields()) {
                        if (reachable(fm.flags())) {
                            members++;
                            String sig = fm.findAttribute(Attributes.signature()).map(a -> a.signature().stringValue())
                                    .orElse(fm.fieldType().stringValue());
                            if (sig.contains(OBJECT)) {
                                found.add(owner + "." + fm.fieldName().stringValue() + " " + sig);
                            }
                        }
                    }
                }
            }
        }
        assertTrue(members > 100, "the members are read: " + members);
        assertEquals(List.of(), found, "members of the engine and the recorders that hand the façade an Object");
    }

    private static final String OBJECT = "Ljava/lang/Object;";

    private static boolean reachable(java.lang.classfile.AccessFlags flags) {
        return flags.has(AccessFlag.PUBLIC) || flags.has(AccessFlag.PROTECTED);
    }

    /** A method's generic signature without its leading type parameters ({@code <T:Ljava/lang/Object;>}). */
    private static String withoutTypeParameters(String sig) {
        if (!sig.startsWith("<")) {
            return sig;
        }
        int depth = 0;
        for (int i = 0; i < sig.length(); i++) {
            char c = sig.charAt(i);
            if (c == '<') {
                depth++;
            } else if (c == '>' && --depth == 0) {
                return sig.substring(i + 1);
            }
        }
        throw new AssertionError("unbalanced signature " + sig);
    }

    /** Whether {@code Object} is a type argument somewhere in {@code types} ({@code Function<Object, R>}). */
    private static boolean insideTypeArguments(String types) {
        int depth = 0;
        for (int i = 0; i < types.length(); i++) {
            char c = types.charAt(i);
            if (c == '<') {
                depth++;
            } else if (c == '>') {
                depth--;
            } else if (depth > 0 && types.startsWith(OBJECT, i)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void engineImportLoopsSpanAtMostEightFiles() throws Exception {
        Map<String, Set<String>> engine = LayerRule.references(classes(), "dev.sluice.engine");
        assertTrue(engine.keySet().containsAll(Set.of("StreamOrder", "CompletionPoller")), "the engine is read: " + engine.keySet());
        Set<String> largest = Set.of();
        for (Set<String> component : stronglyConnected(engine)) {
            if (component.size() > largest.size()) {
                largest = component;
            }
        }
        int allowed = Math.max(MAX_ENGINE_LOOP_FILES, KNOWN_ENGINE_LOOP_FILES);
        assertTrue(largest.size() <= allowed, "the engine's largest import loop spans " + largest.size()
                + " files, over " + allowed + ": " + largest);
        assertTrue(KNOWN_ENGINE_LOOP_FILES == 0 || largest.size() > MAX_ENGINE_LOOP_FILES, "the engine's largest import loop"
                + " spans " + largest.size() + " files, within the limit of " + MAX_ENGINE_LOOP_FILES
                + ": set KNOWN_ENGINE_LOOP_FILES to 0 (" + largest + ")");
    }

    /**
     * The source lines a method's code spans, from its line number table (lambdas are methods of their own). A
     * constructor or static initialiser also runs the class's field initialisers, which lie wherever their fields are
     * declared: its span would measure the class, so it counts the lines that hold its code instead.
     */
    private static int sourceLines(MethodModel m) {
        int first = Integer.MAX_VALUE;
        int last = 0;
        Set<Integer> lines = new TreeSet<>();
        CodeAttribute code = m.findAttribute(Attributes.code()).orElse(null);
        if (code == null) {
            return 0;
        }
        for (var e : code.elementList()) {
            if (e instanceof LineNumber n) {
                first = Math.min(first, n.line());
                last = Math.max(last, n.line());
                lines.add(n.line());
            }
        }
        if (m.methodName().stringValue().startsWith("<")) {
            return lines.size();
        }
        return last == 0 ? 0 : last - first + 1;
    }
}
