package dev.sluice.hip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks the binding layer against AMD's own headers (HIP 5.2, copied into src/test/native/include): every
 * constant in {@link HipApiConstants} has the header's value, and every {@link HipApiSymbol}'s downcall descriptor
 * matches the header's prototype parameter by parameter. Needs no HIP library, so it runs in every build.
 */
class HipHeadersTest {

    private static String headers;
    private static final Map<String, Long> VALUES = new HashMap<>();

    static Path includeDir() {
        for (String p : List.of("src/test/native/include", "impl-hip/src/test/native/include")) {
            if (Files.isDirectory(Path.of(p))) {
                return Path.of(p);
            }
        }
        throw new IllegalStateException("no src/test/native/include from " + Path.of("").toAbsolutePath());
    }

    @BeforeAll
    static void readHeaders() throws IOException {
        Path dir = includeDir();
        StringBuilder sb = new StringBuilder();
        for (String f : List.of("hip/hip_runtime_api.h", "hip/driver_types.h", "hip/hiprtc.h", "hip_after_5_2.h")) {
            sb.append(Files.readString(dir.resolve(f))).append('\n');
        }
        headers = sb.toString()
                .replaceAll("(?s)/\\*.*?\\*/", " ")
                .replaceAll("//[^\n]*", " ");
        Matcher define = Pattern.compile("(?m)^\\s*#\\s*define\\s+(\\w+)\\s+\\(?(0[xX][0-9a-fA-F]+|\\d+)[uU]?\\)?\\s*$").matcher(headers);
        while (define.find()) {
            VALUES.put(define.group(1), Long.decode(define.group(2)));
        }
        Matcher enums = Pattern.compile("enum\\s*(?:__HIP_NODISCARD\\s*)?\\w*\\s*\\{([^}]*)\\}").matcher(headers);
        while (enums.find()) {
            long next = 0;
            for (String item : enums.group(1).split(",")) {
                String s = item.replaceAll("(?m)^\\s*#.*$", "").strip();
                if (s.isEmpty()) {
                    continue;
                }
                String name;
                long value;
                int eq = s.indexOf('=');
                if (eq < 0) {
                    name = s;
                    value = next;
                } else {
                    name = s.substring(0, eq).strip();
                    String expr = s.substring(eq + 1).strip();
                    value = expr.matches("-?(0[xX][0-9a-fA-F]+|\\d+)") ? Long.decode(expr)
                            : VALUES.getOrDefault(expr, Long.MIN_VALUE);
                    if (value == Long.MIN_VALUE) {
                        continue; // an expression this reader does not evaluate; none of ours
                    }
                }
                if (name.matches("\\w+")) {
                    VALUES.put(name, value);
                }
                next = value + 1;
            }
        }
    }

    @Test
    void everyConstantHasTheHeadersValue() throws IllegalAccessException {
        int checked = 0;
        List<String> wrong = new ArrayList<>();
        for (Field f : HipApiConstants.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class) {
                continue;
            }
            f.setAccessible(true);
            Long v = VALUES.get(f.getName());
            if (v == null) {
                wrong.add(f.getName() + ": not in the headers");
            } else if (v.intValue() != f.getInt(null)) {
                wrong.add(f.getName() + ": Java " + f.getInt(null) + ", header " + v);
            }
            checked++;
        }
        assertTrue(wrong.isEmpty(), "constants that differ from HIP's headers: " + wrong);
        assertTrue(checked > 60, "checked only " + checked + " constants");
        System.out.println("HipHeadersTest: " + checked + " constants match HIP's headers");
    }

    @Test
    void everySymbolMatchesItsPrototype() {
        List<String> wrong = new ArrayList<>();
        for (HipApiSymbol s : HipApiSymbol.values()) {
            Optional<List<String>> proto = prototype(s.name());
            if (proto.isEmpty()) {
                wrong.add(s.name() + ": no prototype in the headers");
                continue;
            }
            List<String> c = proto.get();
            List<MemoryLayout> java = new ArrayList<>();
            java.add(s.descriptor.returnLayout().orElseThrow());
            java.addAll(s.descriptor.argumentLayouts());
            if (c.size() != java.size()) {
                wrong.add(s.name() + ": " + (c.size() - 1) + " C parameters, " + (java.size() - 1) + " bound");
                continue;
            }
            for (int i = 0; i < c.size(); i++) {
                String kind = kind(c.get(i));
                if (!fits(kind, java.get(i))) {
                    wrong.add(s.name() + (i == 0 ? " result" : " parameter " + i) + ": C '" + c.get(i) + "' (" + kind
                            + ") bound as " + java.get(i));
                }
            }
        }
        assertTrue(wrong.isEmpty(), "bindings that differ from HIP's prototypes:\n  " + String.join("\n  ", wrong));
        System.out.println("HipHeadersTest: " + HipApiSymbol.values().length + " downcall descriptors match HIP's prototypes");
    }

    /**
     * Every field of the graph-node structs the backend writes sits at the offset the header's declaration gives it
     * (natural alignment on x86-64 and AArch64), in the header's order, and the structs have the header's size.
     */
    @Test
    void everyNodeStructMatchesItsDeclaration() {
        List<String> wrong = new ArrayList<>();
        for (StructLayout java : List.of(HipApiNodeParams.KERNEL, HipApiNodeParams.MEMSET)) {
            String name = java.name().orElseThrow();
            Matcher m = Pattern.compile("typedef\\s+struct\\s+" + name + "\\s*\\{([^}]*)\\}\\s*" + name + "\\s*;").matcher(headers);
            if (!m.find()) {
                wrong.add(name + ": no declaration in the headers");
                continue;
            }
            long offset = 0;
            long align = 1;
            List<String> cFields = new ArrayList<>();
            for (String decl : m.group(1).split(";")) {
                String d = decl.replaceAll("\\s+", " ").strip();
                if (d.isEmpty()) {
                    continue;
                }
                String field = d.substring(d.lastIndexOf(' ') + 1).replace("*", "");
                long[] sizeAlign = d.contains("*") ? new long[] {8, 8} : switch (d.substring(0, d.lastIndexOf(' '))) {
                    case "dim3" -> new long[] {12, 4};
                    case "unsigned int", "int", "uint32_t" -> new long[] {4, 4};
                    case "size_t", "uint64_t" -> new long[] {8, 8};
                    default -> throw new AssertionError(name + ": a field type this test does not lay out: " + d);
                };
                offset = (offset + sizeAlign[1] - 1) / sizeAlign[1] * sizeAlign[1];
                align = Math.max(align, sizeAlign[1]);
                cFields.add(field);
                long javaOffset = java.byteOffset(MemoryLayout.PathElement.groupElement(field));
                if (javaOffset != offset) {
                    wrong.add(name + "." + field + ": C offset " + offset + ", bound at " + javaOffset);
                }
                offset += sizeAlign[0];
            }
            long size = (offset + align - 1) / align * align;
            if (java.byteSize() != size) {
                wrong.add(name + ": C size " + size + ", bound " + java.byteSize());
            }
            List<String> javaFields = java.memberLayouts().stream().flatMap(l -> l.name().stream()).toList();
            if (!javaFields.equals(cFields)) {
                wrong.add(name + ": C fields " + cFields + ", bound " + javaFields);
            }
        }
        assertTrue(wrong.isEmpty(), "structs that differ from HIP's declarations:\n  " + String.join("\n  ", wrong));
    }

    @Test
    void attributeNumbersAreHipsNotCudas() {
        // The classic mistake: CUDA's CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK is 1, HIP's is 56.
        assertEquals(56, HipApiConstants.hipDeviceAttributeMaxThreadsPerBlock);
        assertEquals(87, HipApiConstants.hipDeviceAttributeWarpSize);
    }

    /** Result type, then parameter types, of the first declaration of {@code name}. */
    private static Optional<List<String>> prototype(String name) {
        Matcher m = Pattern.compile("(hipError_t|hiprtcResult|const\\s+char\\s*\\*)\\s+" + name + "\\s*\\(([^;{]*?)\\)\\s*[;{]")
                .matcher(headers.replaceAll("__dparm\\([^)]*\\)", ""));
        if (!m.find()) {
            return Optional.empty();
        }
        List<String> out = new ArrayList<>();
        out.add(m.group(1).replaceAll("\\s+", " "));
        String params = m.group(2).replaceAll("=[^,]*", "").replaceAll("\\s+", " ").strip();
        if (!params.isEmpty() && !params.equals("void")) {
            for (String p : params.split(",")) {
                out.add(p.strip());
            }
        }
        return Optional.of(out);
    }

    /** "pointer", "int", "long", "byte", "short" for a C declaration (with or without a parameter name). */
    private static String kind(String decl) {
        if (decl.contains("*")) {
            return "pointer";
        }
        String t = decl.replaceAll("\\b(const|enum|struct|volatile)\\b", " ").replaceAll("\\s+", " ").strip();
        String k = typeKind(t);
        int space = t.lastIndexOf(' ');
        if (k == null && space > 0) {
            k = typeKind(t.substring(0, space)); // drop the parameter's name
        }
        return k == null ? "unknown type '" + t + "'" : k;
    }

    private static String typeKind(String type) {
        return switch (type) {
            case "hipError_t", "hiprtcResult", "int", "unsigned", "unsigned int", "hipDevice_t", "hipDeviceAttribute_t",
                    "hipLimit_t", "hipFunction_attribute", "hipStreamCaptureMode", "hipMemcpyKind", "uint32_t", "int32_t" -> "int";
            case "size_t", "uint64_t", "unsigned long long" -> "long";
            case "unsigned char" -> "byte";
            case "unsigned short" -> "short";
            case "hipStream_t", "hipEvent_t", "hipModule_t", "hipFunction_t", "hipGraph_t", "hipGraphExec_t", "hipDeviceptr_t",
                    "hiprtcProgram", "hipGraphNode_t", "hipCtx_t", "hipHostFn_t" -> "pointer";
            default -> null;
        };
    }

    private static boolean fits(String kind, MemoryLayout l) {
        return switch (kind) {
            case "pointer" -> l instanceof AddressLayout || l.equals(ValueLayout.JAVA_LONG);
            case "int" -> l.equals(ValueLayout.JAVA_INT);
            case "long" -> l.equals(ValueLayout.JAVA_LONG);
            case "byte" -> l.equals(ValueLayout.JAVA_BYTE);
            case "short" -> l.equals(ValueLayout.JAVA_SHORT);
            default -> {
                fail(kind);
                yield false;
            }
        };
    }
}
