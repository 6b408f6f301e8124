package dev.sluice;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A kernel declaration: its name, its parameter list, and one or more forms of its code, so that one
 * declaration runs on every backend: CUDA C++ source (compiled at run time by NVRTC or hiprtc), PTX,
 * cubin or fatbin images for CUDA, a code object for HIP, and a Java implementation for the CPU backend.
 * Compile it on a context with {@link DeviceContext#compile(Kernel)}, once, and launch the result many
 * times.
 *
 * <pre>{@code
 * Kernel scalarAdd = Kernel.named("scalar_add")
 *     .param(KernelParam.pointer("vector", DType.F32))
 *     .param(KernelParam.scalar("size", DType.I64))
 *     .param(KernelParam.scalar("scalar", DType.F32))
 *     .elementCount("size", "vector")   // launches refuse a size past the buffer
 *     .cudaSource("""
 *         extern "C" __global__ void scalar_add(float* vector, long long size, float scalar) {
 *             long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
 *             if (i < size) vector[i] += scalar;
 *         }""")
 *     .java(t -> { ... })
 *     .build();
 * }</pre>
 */
public final class Kernel {

    private final String name;
    private final String entryPoint;
    private final List<KernelParam> params;
    private final Optional<String> cudaSource;
    private final Optional<byte[]> ptx;
    private final Optional<byte[]> cubin;
    private final Optional<byte[]> fatbin;
    private final Optional<byte[]> hipCodeObject;
    private final Optional<JavaKernel> java;
    private final boolean javaUsesBarriers;
    private final List<String> compileOptions;
    private final List<ElementCount> elementCounts;
    private final Optional<Fusion> fusion;

    /** A scalar parameter, by position, that is the element count of the pointer parameters at {@code pointers}. */
    private record ElementCount(int count, int[] pointers) {
    }

    private Kernel(Builder b) {
        this.name = b.name;
        this.entryPoint = b.entryPoint == null ? b.name : b.entryPoint;
        this.params = b.cudaSource == null ? List.copyOf(b.params) : constPointersRead(entryPoint, b.params, b.cudaSource);
        this.cudaSource = Optional.ofNullable(b.cudaSource);
        this.ptx = Optional.ofNullable(b.ptx);
        this.cubin = Optional.ofNullable(b.cubin);
        this.fatbin = Optional.ofNullable(b.fatbin);
        this.hipCodeObject = Optional.ofNullable(b.hipCodeObject);
        this.java = Optional.ofNullable(b.java);
        this.javaUsesBarriers = b.javaUsesBarriers;
        this.compileOptions = List.copyOf(b.compileOptions);
        this.elementCounts = List.copyOf(b.elementCounts);
        this.fusion = Optional.ofNullable(b.fusion);
    }

    /**
     * Checks the {@link Builder#elementCount element counts} of a launch's arguments, which are already checked against
     * the parameters' types: each count is at least 0 and at most the elements ({@code elementsOf}) of each of its buffers.
     * Builds no message unless a check fails (this runs on every launch).
     *
     * @throws InvalidArgumentException naming the count's argument, its value, and the buffer it exceeds
     */
    void checkElementCounts(Object[] arguments, ToLongFunction<Object> elementsOf) {
        for (ElementCount c : elementCounts) {
            Object value = arguments[c.count];
            long n = value instanceof Boolean bool ? (bool ? 1 : 0) : ((Number) value).longValue();
            if (n < 0) {
                throw new InvalidArgumentException(argumentName(params.get(c.count), c.count), "value " + n
                        + " is negative; it is the element count of " + pointerNames(c));
            }
            for (int p : c.pointers) {
                long elements = elementsOf.applyAsLong(arguments[p]);
                if (elements < n) {
                    throw new InvalidArgumentException(argumentName(params.get(c.count), c.count), "value " + n
                            + " exceeds the " + elements + " elements of " + argumentName(params.get(p), p)
                            + ", which the kernel " + name + " indexes below it");
                }
            }
        }
    }

    /** How messages name the argument of parameter {@code p} at {@code index}. */
    static String argumentName(KernelParam p, int index) {
        return "arguments[" + index + "] (" + p + ")";
    }

    private String pointerNames(ElementCount c) {
        List<String> names = new ArrayList<>();
        for (int p : c.pointers) {
            names.add(params.get(p).name());
        }
        return String.join(", ", names);
    }

    /**
     * {@code params}, with each read-write pointer that the CUDA source's signature of {@code name} declares
     * {@code const} ({@code const float* x}, {@code float const* x}) marked {@link KernelParam.Access#READ}: the kernel
     * cannot write through it, so automatic ordering may let other readers share it. Parameters are matched by name;
     * a source whose signature is not found leaves them as declared.
     */
    private static List<KernelParam> constPointersRead(String name, List<KernelParam> params, String source) {
        Matcher m = Pattern.compile("\\b" + Pattern.quote(name)
                + "\\s*\\(([^)]*)\\)").matcher(source);
        if (!m.find()) {
            return List.copyOf(params);
        }
        Set<String> constPointers = new HashSet<>();
        for (String declaration : m.group(1).split(",")) {
            String d = declaration.strip();
            int star = d.lastIndexOf('*');
            if (star < 0) {
                continue;
            }
            String parameter = d.substring(star + 1).replaceAll("__restrict__|\\brestrict\\b", "").strip();
            String type = d.substring(0, star);
            if (type.matches(".*\\bconst\\b.*") && !type.contains("*")) { // const T* or T const*, not T* const*
                constPointers.add(parameter);
            }
        }
        List<KernelParam> result = new ArrayList<>(params.size());
        for (KernelParam p : params) {
            result.add(p.isPointer() && p.access() == KernelParam.Access.READ_WRITE && constPointers.contains(p.name())
                    ? KernelParam.pointer(p.name(), p.type(), KernelParam.Access.READ) : p);
        }
        return List.copyOf(result);
    }

    /**
     * Starts a declaration of the kernel named {@code name}, whose entry point (the {@code extern "C"} name its code
     * exports) is {@code name} too unless {@link Builder#entryPoint} says otherwise.
     *
     * @throws InvalidArgumentException naming {@code name} for null, a name that is not a C identifier or one over 1024
     *                                  characters
     */
    public static Builder named(String name) {
        return new Builder(name);
    }

    /**
     * The kernel's name, a C identifier: what {@link DeviceFunction}, traces, listeners and messages call it. The
     * entry point of its code unless {@link Builder#entryPoint} named another.
     */
    public String name() {
        return name;
    }

    /**
     * The {@code extern "C"} name every form of the code exports, which backends look the kernel up by: {@link #name()}
     * unless {@link Builder#entryPoint} named another. The kernel language's generated kernels export
     * {@code "sluice_" + name}, so that a kernel may be named after anything the CUDA and HIP compilers declare
     * ({@code fma}, {@code sin}, {@code printf}) on every backend.
     */
    public String entryPoint() {
        return entryPoint;
    }

    /** The parameters in declaration order, as launches must pass them; unmodifiable, empty for none. */
    public List<KernelParam> params() {
        return params;
    }

    /** CUDA C++ source, compiled at run time by NVRTC (CUDA) or hiprtc (HIP). */
    public Optional<String> cudaSource() {
        return cudaSource;
    }

    /** PTX for CUDA's JIT (text, as bytes), if given; a copy each call. */
    public Optional<byte[]> ptx() {
        return ptx.map(byte[]::clone);
    }

    /** A cubin image for CUDA, compiled for one compute capability, if given; a copy each call. */
    public Optional<byte[]> cubin() {
        return cubin.map(byte[]::clone);
    }

    /** A fatbin image for CUDA (cubins for several architectures, maybe PTX), if given; a copy each call. */
    public Optional<byte[]> fatbin() {
        return fatbin.map(byte[]::clone);
    }

    /** An AMD code object (HSACO) for HIP's module loader. */
    public Optional<byte[]> hipCodeObject() {
        return hipCodeObject.map(byte[]::clone);
    }

    /** The Java implementation the CPU backend runs, if given. */
    public Optional<JavaKernel> java() {
        return java;
    }

    /** Whether the Java implementation calls {@link KernelThread#syncThreads()}. */
    public boolean javaUsesBarriers() {
        return javaUsesBarriers;
    }

    /** Extra options for the run-time compiler ("-O3", "--use_fast_math", "-DN=4"). */
    public List<String> compileOptions() {
        return compileOptions;
    }

    /**
     * How repeated work may run consecutive launches of this kernel as one kernel, where the kernel declared it
     * ({@link Builder#fusion}): the kernel language's element-wise kernels do. Empty for a kernel that does not fuse.
     */
    public Optional<Fusion> fusion() {
        return fusion;
    }

    /**
     * A kernel's declaration that repeated work ({@link RepeatedWork}) may run a run of consecutive launches of it, and
     * of kernels whose fusion comes from the same generator, as one launch of a kernel that this builds. For kernel
     * generators: the kernel language's element-wise kernels carry one, and a hand-written kernel has none, so its
     * launches run as recorded.
     *
     * <p>A kernel that declares a fusion promises what repeated work's plan rests on: its last parameter is the element
     * count {@code n}, an {@link DType#I64} scalar; every other pointer parameter is indexed by the element only, thread
     * {@code i} touching element {@code i} and no other; and its {@link KernelParam.Access} says which pointers it
     * writes. Repeated work then fuses only launches of the same {@link LaunchConfig} and {@code n} whose pointer
     * arguments either do not overlap or, where one writes, are the same region (memory, offset and element type): the
     * fused kernel's thread {@code i} runs the launches' bodies in order on element {@code i}, touching what they touched
     * in the same order. A fusion that breaks the promise computes something else.
     *
     * <p>Implementations are immutable and thread-safe; repeated work compares them with {@code equals} to reuse a fused
     * kernel it loaded for the same launches before.
     */
    public interface Fusion {

        /**
         * In {@link #fuse}'s {@code sources}, an output that a later launch of the run overwrites: the fused kernel keeps
         * it in a register instead of storing it.
         */
        int OVERWRITTEN = -2;

        /**
         * The most code one fused kernel holds, in the units of {@link #size()}: repeated work ends a run of launches
         * before their sizes would sum past it, and fuses the rest of them into the next kernel. Why: a few launches'
         * bodies in one kernel save their loads and stores, but one kernel of thousands of launches' bodies runs slower
         * than the launches themselves (its code no longer fits the GPU's instruction cache; on the CPU simulator a
         * method over the JIT's limit of 8,000 bytes of bytecode is never compiled and runs 20 to 30 times slower,
         * which two bodies of 128 FMAs, 1,288 nodes, stay under and three do not). A body of 128 FMAs is 644 nodes.
         */
        int MAX_FUSED_SIZE = 1024;

        /**
         * How much code one launch's body adds to a fused kernel, in syntax-tree nodes of its statements (a name, a
         * literal, an operation, a call and an assignment count one each); at least 1. A kernel generator without such a
         * measure keeps the default, 1, and its runs are then capped at {@link #MAX_FUSED_SIZE} launches.
         */
        default int size() {
            return 1;
        }

        /**
         * Whether a launch of this kernel writes its parameter {@code output} so that an earlier launch's write of the
         * same region is never read from memory: it assigns the output before reading it and reads none of
         * {@code aliases} (its parameters on the same region, {@code output} among them) after. False where unsure.
         *
         * @param output  the position of a pointer parameter the kernel writes
         * @param aliases the positions of its parameters that the launch passes the same region
         */
        boolean overwrites(int output, int[] aliases);

        /**
         * One kernel running {@code launches}' kernels one after another for each element; called on the first of
         * them. {@code sources[k]} has an entry for each parameter of launch {@code k} before its {@code n}. For an
         * input pointer it says where the input reads from: {@code -1} for a parameter of the fused kernel, else
         * {@code k' << 16 | j'}, parameter {@code j'} of an earlier launch {@code k'} (an output it wrote, or the same
         * input). An output is written to memory, a parameter of the fused kernel, unless its entry is
         * {@link #OVERWRITTEN}: then it stays in a register. A scalar's entry is {@code -1}. The fused kernel's
         * parameters are the launches' parameters before their {@code n}, in order, those bound or overwritten left out,
         * then {@code n}.
         *
         * @param launches the fusions of the launches' kernels, in launch order; this one first
         * @param sources  for each launch, where each of its parameters before {@code n} reads from
         * @throws RuntimeException to refuse the run (a fusion of another generator among {@code launches}, say): its
         *                          launches then run as recorded
         */
        Kernel fuse(List<Fusion> launches, int[][] sources);
    }

    /**
     * A kernel loaded for a device, as a launch names it ({@link DeviceFunction} is one): how code below the handles
     * reaches the kernel, and its {@link #fusion()}, of what it launches.
     */
    public interface Loaded {

        /** The kernel this was loaded from. */
        Kernel kernel();
    }

    @Override
    public String toString() {
        return "Kernel " + name + params.stream().map(KernelParam::toString).toList().toString()
                .replace('[', '(').replace(']', ')');
    }

    /** Builds a {@link Kernel}. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private String entryPoint;
        private final List<KernelParam> params = new ArrayList<>();
        private String cudaSource;
        private byte[] ptx;
        private byte[] cubin;
        private byte[] fatbin;
        private byte[] hipCodeObject;
        private JavaKernel java;
        private boolean javaUsesBarriers;
        private final List<String> compileOptions = new ArrayList<>();
        private final List<ElementCount> elementCounts = new ArrayList<>();
        private Fusion fusion;

        private Builder(String name) {
            this.name = Checks.kernelName("name", name);
        }

        /**
         * Names the {@code extern "C"} function the code exports, where it is not the kernel's name: the kernel keeps its
         * name everywhere Sluice shows it, and backends load {@code symbol}. For code whose exported name would collide
         * with what the compiler's headers declare, or code compiled elsewhere under another name.
         *
         * @throws InvalidArgumentException naming {@code symbol} for null or a name that is not a C identifier
         */
        public Builder entryPoint(String symbol) {
            this.entryPoint = Checks.identifier("symbol", symbol);
            return this;
        }

        /**
         * Appends a parameter.
         *
         * @throws InvalidArgumentException naming {@code param} for null or a name the kernel already has a parameter of
         */
        public Builder param(KernelParam param) {
            Checks.notNull("param", param);
            for (KernelParam p : params) {
                if (p.name().equals(param.name())) {
                    throw new InvalidArgumentException("param", "kernel " + name + " already has a parameter named '"
                            + p.name() + "' (" + p + "); parameter names must be distinct");
                }
            }
            params.add(param);
            return this;
        }

        /**
         * Declares that the scalar parameter {@code count} is the number of elements the kernel indexes through each of
         * the pointer parameters {@code pointers}, so that a launch refuses, before anything is enqueued, a negative
         * count or a buffer holding fewer elements (for a view, its own {@link DeviceBuffer#count()}): a kernel that
         * trusts its count would read and write past the buffer. The elementwise kernels of the kernel language declare
         * their {@code n} so. Call it after declaring the parameters; it may be called for several counts.
         *
         * @throws InvalidArgumentException naming {@code count} for a name that is not a declared scalar of type
         *                                  {@link DType#I32} or {@link DType#I64}, naming {@code pointers} for null, none,
         *                                  or a name that is not a declared pointer
         */
        public Builder elementCount(String count, String... pointers) {
            Checks.notNull("count", count);
            Checks.noNulls("pointers", pointers);
            int c = indexOf(count);
            if (c < 0 || params.get(c).isPointer() || params.get(c).type() != DType.I32 && params.get(c).type() != DType.I64) {
                throw new InvalidArgumentException("count", "kernel " + name + " has no I32 or I64 scalar parameter named '"
                        + count + "'; its parameters are " + params);
            }
            if (pointers.length == 0) {
                throw new InvalidArgumentException("pointers", "none given: name the pointer parameters " + count + " counts");
            }
            int[] indexes = new int[pointers.length];
            for (int k = 0; k < pointers.length; k++) {
                indexes[k] = indexOf(pointers[k]);
                if (indexes[k] < 0 || !params.get(indexes[k]).isPointer()) {
                    throw new InvalidArgumentException("pointers", "kernel " + name + " has no pointer parameter named '"
                            + pointers[k] + "'; its parameters are " + params);
                }
            }
            elementCounts.add(new ElementCount(c, indexes));
            return this;
        }

        private int indexOf(String param) {
            for (int k = 0; k < params.size(); k++) {
                if (params.get(k).name().equals(param)) {
                    return k;
                }
            }
            return -1;
        }

        /**
         * Appends parameters in order; none is added if one is refused.
         *
         * @throws InvalidArgumentException naming {@code params} for a null array or element, or a name given twice
         */
        public Builder params(KernelParam... ps) {
            Checks.noNulls("params", ps);
            int before = params.size();
            try {
                for (KernelParam p : ps) {
                    param(p);
                }
            } catch (InvalidArgumentException e) {
                params.subList(before, params.size()).clear();
                throw new InvalidArgumentException("params", e.getMessage().substring("param: ".length()));
            }
            return this;
        }

        /**
         * CUDA C++ source defining the kernel as {@code extern "C"}, compiled at run time by NVRTC (CUDA) or hiprtc
         * (HIP) with the {@link #compileOption compile options}.
         *
         * @throws InvalidArgumentException naming {@code source} for null or blank source
         */
        public Builder cudaSource(String source) {
            if (Checks.notNull("source", source).isBlank()) {
                throw new InvalidArgumentException("source", "kernel " + name + ": the CUDA source is blank");
            }
            this.cudaSource = source;
            return this;
        }

        /**
         * PTX, as bytes of its text, for CUDA's JIT; copied.
         *
         * @throws InvalidArgumentException naming {@code image} for null or an empty image
         */
        public Builder ptx(byte[] image) {
            this.ptx = image("image", image);
            return this;
        }

        /**
         * PTX text.
         *
         * @throws InvalidArgumentException naming {@code text} for null or blank text
         */
        public Builder ptx(String text) {
            if (Checks.notNull("text", text).isBlank()) {
                throw new InvalidArgumentException("text", "kernel " + name + ": the PTX text is blank");
            }
            return ptx(text.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * A cubin image for CUDA, which loads only on devices of the compute capability it was built for; copied.
         *
         * @throws InvalidArgumentException naming {@code image} for null or an empty image
         */
        public Builder cubin(byte[] image) {
            this.cubin = image("image", image);
            return this;
        }

        /**
         * A fatbin image for CUDA (cubins for several architectures, maybe PTX), from which the driver loads the best
         * match for the device; copied.
         *
         * @throws InvalidArgumentException naming {@code image} for null or an empty image
         */
        public Builder fatbin(byte[] image) {
            this.fatbin = image("image", image);
            return this;
        }

        /**
         * An AMD code object (HSACO) for HIP's module loader, built for the device's architecture; copied.
         *
         * @throws InvalidArgumentException naming {@code image} for null or an empty image
         */
        public Builder hipCodeObject(byte[] image) {
            this.hipCodeObject = image("image", image);
            return this;
        }

        /** A copy of {@code image}: a module image is never empty (a driver would refuse one only when loading it). */
        private byte[] image(String argument, byte[] image) {
            if (Checks.notNull(argument, image).length == 0) {
                throw new InvalidArgumentException(argument, "kernel " + name + ": the image is empty (0 bytes)");
            }
            return image.clone();
        }

        /**
         * The Java implementation for the CPU backend; it must not call {@link KernelThread#syncThreads()}.
         *
         * @throws InvalidArgumentException naming {@code kernel} for null
         */
        public Builder java(JavaKernel kernel) {
            return java(kernel, false);
        }

        /**
         * The Java implementation; {@code usesBarriers} runs a block's threads concurrently so that syncThreads works.
         *
         * @throws InvalidArgumentException naming {@code kernel} for null
         */
        public Builder java(JavaKernel kernel, boolean usesBarriers) {
            this.java = Checks.notNull("kernel", kernel);
            this.javaUsesBarriers = usesBarriers;
            return this;
        }

        /**
         * An option for the run-time compiler. An architecture option ({@code --gpu-architecture=...} or {@code -arch} on
         * CUDA, {@code --offload-arch=...} on HIP) replaces the one the backend would choose for the device.
         *
         * @throws InvalidArgumentException naming {@code option} for null or a blank option
         */
        public Builder compileOption(String option) {
            Checks.notNull("option", option);
            if (option.isBlank()) {
                throw new InvalidArgumentException("option", "'" + option + "' is blank");
            }
            compileOptions.add(option);
            return this;
        }

        /**
         * Declares that repeated work may fuse consecutive launches of the kernel as {@code fusion} describes; see
         * {@link Fusion} for what that promises. For kernel generators (the kernel language declares its element-wise
         * kernels so).
         *
         * @throws InvalidArgumentException naming {@code fusion} for null
         */
        public Builder fusion(Fusion fusion) {
            this.fusion = Checks.notNull("fusion", fusion);
            return this;
        }

        /**
         * The declaration.
         *
         * @throws InvalidArgumentException naming {@code kernel} if no form of code was given
         */
        public Kernel build() {
            if (cudaSource == null && ptx == null && cubin == null && fatbin == null && hipCodeObject == null && java == null) {
                throw new InvalidArgumentException("kernel", name + " has no code: give CUDA C++ source, PTX, cubin, fatbin,"
                        + " a HIP code object or a Java implementation");
            }
            return new Kernel(this);
        }
    }
}
