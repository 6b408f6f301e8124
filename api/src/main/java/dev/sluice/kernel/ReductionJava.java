package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.JavaKernel;
import dev.sluice.kernel.Ast.Expr;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The Java half of a reduction's kernels ({@link ReductionCode} writes the CUDA half): the bytecode the CPU backend runs
 * for each shape of launch, visiting the elements, rows, chunks and partials in the order the CUDA code combines them,
 * so that the two agree where the guide says they do. Made by {@link ReductionCode}, which owns the expressions.
 */
final class ReductionJava {

    private static final ClassDesc MATH = ClassDesc.of("java.lang.Math");

    private final Ty acc;
    private final Expr map;
    private final Expr reduce;
    private final Expr identity;
    private final List<Statement> postMap;
    /** Names the part of the source to blame when a generated method is over the JVM's limits. */
    private final Function<String, CompilationException> tooLarge;

    ReductionJava(Ty acc, Expr map, Expr reduce, Expr identity, List<Statement> postMap,
            Function<String, CompilationException> tooLarge) {
        this.acc = acc;
        this.map = map;
        this.reduce = reduce;
        this.identity = identity;
        this.postMap = postMap;
        this.tooLarge = tooLarge;
    }

    JavaKernel java(String kernelName, List<Symbol> symbols, Map<String, Integer> position, boolean fromPartials,
            boolean toPartials) {
        MethodTypeDesc intGetter = MethodTypeDesc.of(ConstantDescs.CD_int);
        TypeKind k = JavaCode.kind(acc);
        return Generated.kernel(kernelName, cb -> {
            Label end = threadZeroOnly(cb);
            int[] slots = Params.load(cb, symbols);
            int[] geometry = geometry(cb, symbols.size(), ReductionCode.GEOMETRY.size());
            int count = geometry[0];
            int length = geometry[1];
            int outer = geometry[2];
            int inner = geometry[3];
            int total = geometry[4];
            int o = cb.allocateLocal(TypeKind.LONG);
            int step = cb.allocateLocal(TypeKind.LONG);
            int kk = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            int a = cb.allocateLocal(k);
            int b = cb.allocateLocal(k);
            MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxX", intGetter).i2l().lstore(o);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).i2l().lstore(step);
            JavaCode code = new JavaCode(cb, access(slots, position, i, o, total, a, b));
            Label segments = cb.newLabel();
            Label elements = cb.newLabel();
            Label segmentDone = cb.newLabel();
            cb.labelBinding(segments);
            cb.lload(o).lload(count).lcmp().ifge(end);
            code.converted(identity, acc);
            cb.storeLocal(k, a);
            cb.lconst_0().lstore(kk);
            cb.labelBinding(elements);
            cb.lload(kk).lload(length).lcmp().ifge(segmentDone);
            cb.lload(o).lload(outer).lmul().lload(kk).lload(inner).lmul().ladd().lstore(i);
            cb.lload(i).lload(total).invokestatic(ConstantDescs.CD_Long, "compareUnsigned",
                    MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long, ConstantDescs.CD_long)).ifge(segmentDone);
            fold(cb, code, fromPartials ? slots[position.get(ReductionCode.PARTIALS)] : -1, i, a, b);
            cb.lload(kk).lconst_1().ladd().lstore(kk);
            cb.goto_(elements);
            cb.labelBinding(segmentDone);
            write(cb, code, toPartials ? slots[position.get(ReductionCode.PARTIALS)] : -1, o, a);
            cb.lload(o).lload(step).ladd().lstore(o);
            cb.goto_(segments);
            cb.labelBinding(end);
            cb.return_();
        }, tooLarge);
    }

    /**
     * How the generated Java reads and writes: inputs at the element index in slot {@code i}, outputs at the segment's
     * index in slot {@code o}, {@code n} from slot {@code total}, {@code a} and {@code b} from their slots.
     */
    private JavaCode.Access access(int[] slots, Map<String, Integer> position, int i, int o, int total, int a, int b) {
        TypeKind k = JavaCode.kind(acc);
        return new JavaCode.Access() {
            @Override
            public void load(CodeBuilder c, Symbol s) {
                switch (s.role()) {
                    case INPUT_POINTER -> JavaCode.loadElement(c, slots[position.get(s.name())], i, s.type());
                    case OUTPUT_POINTER -> JavaCode.loadElement(c, slots[position.get(s.name())], o, s.type());
                    case SCALAR -> c.loadLocal(JavaCode.kind(s.type()), slots[position.get(s.name())]);
                    case INDEX -> c.lload(i);
                    case COUNT -> c.lload(total);
                    case ACCUMULATOR -> c.loadLocal(k, s.index() == 0 ? a : b);
                    default -> throw new AssertionError(s);
                }
            }

            @Override
            public void store(CodeBuilder c, Symbol s) {
                JavaCode.storeElement(c, slots[position.get(s.name())], o, s.type());
            }
        };
    }

    /**
     * A column kernel in Java: thread 0 of block {@code (x, y)} reduces each column of its tiles over the rows of chunk
     * {@code y} in row order, and the block's other threads return. Blocks of one launch run in parallel.
     */
    JavaKernel columnsJava(String kernelName, List<Symbol> symbols, Map<String, Integer> position,
            boolean fromPartials, boolean toPartials) {
        MethodTypeDesc intGetter = MethodTypeDesc.of(ConstantDescs.CD_int);
        MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
        MethodTypeDesc longPair = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_long, ConstantDescs.CD_long);
        MethodTypeDesc unsignedCompare = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long, ConstantDescs.CD_long);
        TypeKind k = JavaCode.kind(acc);
        return Generated.kernel(kernelName, cb -> {
            Label end = threadZeroOnly(cb);
            int[] slots = Params.load(cb, symbols);
            int[] geometry = geometry(cb, symbols.size(), ReductionCode.COLUMN_GEOMETRY.size());
            int cols = geometry[0];
            int rows = geometry[1];
            int chunkRows = geometry[2];
            int count = geometry[3];
            int total = geometry[4];
            int first = cb.allocateLocal(TypeKind.LONG);
            int last = cb.allocateLocal(TypeKind.LONG);
            int tile = cb.allocateLocal(TypeKind.LONG);
            int step = cb.allocateLocal(TypeKind.LONG);
            int j = cb.allocateLocal(TypeKind.LONG);
            int tileEnd = cb.allocateLocal(TypeKind.LONG);
            int r = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            int o = cb.allocateLocal(TypeKind.LONG);
            int a = cb.allocateLocal(k);
            int b = cb.allocateLocal(k);
            // first = blockIdx.y * chunkRows; last = first + min(max(rows - first, 0), chunkRows): no overflow
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxY", intGetter).i2l().lload(chunkRows).lmul()
                    .lstore(first);
            cb.lload(rows).lload(first).lsub().lconst_0()
                    .invokestatic(MATH, "max", longPair)
                    .lload(chunkRows).invokestatic(MATH, "min", longPair)
                    .lload(first).ladd().lstore(last);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxX", intGetter).i2l().lstore(tile);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).i2l().lstore(step);
            JavaCode code = new JavaCode(cb, access(slots, position, i, o, total, a, b));
            Label tiles = cb.newLabel();
            Label columns = cb.newLabel();
            Label elements = cb.newLabel();
            Label columnDone = cb.newLabel();
            Label written = cb.newLabel();
            Label tileDone = cb.newLabel();
            cb.labelBinding(tiles);
            cb.lload(tile).loadConstant((long) ReductionCode.COLUMN_TILE).lmul().lstore(j);
            cb.lload(j).lload(cols).lcmp().ifge(end);
            cb.lload(j).loadConstant((long) ReductionCode.COLUMN_TILE).ladd().lload(cols)
                    .invokestatic(MATH, "min", longPair).lstore(tileEnd);
            cb.labelBinding(columns);
            cb.lload(j).lload(tileEnd).lcmp().ifge(tileDone);
            code.converted(identity, acc);
            cb.storeLocal(k, a);
            cb.lload(first).lstore(r);
            cb.labelBinding(elements);
            cb.lload(r).lload(last).lcmp().ifge(columnDone);
            cb.lload(r).lload(cols).lmul().lload(j).ladd().lstore(i);
            cb.lload(i).lload(total).invokestatic(ConstantDescs.CD_Long, "compareUnsigned", unsignedCompare)
                    .ifge(columnDone);
            fold(cb, code, fromPartials ? slots[position.get(ReductionCode.PARTIALS)] : -1, i, a, b);
            cb.lload(r).lconst_1().ladd().lstore(r);
            cb.goto_(elements);
            cb.labelBinding(columnDone);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxY", intGetter).i2l().lload(cols).lmul()
                    .lload(j).ladd().lstore(o);
            cb.lload(o).lload(count).lcmp().ifge(written);
            write(cb, code, toPartials ? slots[position.get(ReductionCode.PARTIALS)] : -1, o, a);
            cb.labelBinding(written);
            cb.lload(j).lconst_1().ladd().lstore(j);
            cb.goto_(columns);
            cb.labelBinding(tileDone);
            cb.lload(tile).lload(step).ladd().lstore(tile);
            cb.goto_(tiles);
            cb.labelBinding(end);
            cb.return_();
        }, tooLarge);
    }

    /**
     * The narrow-row kernel in Java: thread 0 of block {@code b} reduces, in column order, the rows the C++ gives the
     * block: {@code blockDim.x / lanes} adjacent rows from {@code b * blockDim.x / lanes}, and as many again every
     * {@code gridDim.x} blocks' worth of rows. The block's other threads return.
     */
    JavaKernel narrowRowsJava(String kernelName, List<Symbol> symbols, Map<String, Integer> position) {
        MethodTypeDesc intGetter = MethodTypeDesc.of(ConstantDescs.CD_int);
        MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
        MethodTypeDesc bitCount = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long);
        TypeKind k = JavaCode.kind(acc);
        return Generated.kernel(kernelName, cb -> {
            Label end = threadZeroOnly(cb);
            int[] slots = Params.load(cb, symbols);
            int[] geometry = geometry(cb, symbols.size(), ReductionCode.NARROW_GEOMETRY.size());
            int count = geometry[0];
            int cols = geometry[1];
            int lanes = geometry[2];
            int total = geometry[3];
            int perBlock = cb.allocateLocal(TypeKind.LONG);
            int skip = cb.allocateLocal(TypeKind.LONG);
            int o = cb.allocateLocal(TypeKind.LONG);
            int start = cb.allocateLocal(TypeKind.LONG);
            int length = cb.allocateLocal(TypeKind.LONG);
            int kk = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            int a = cb.allocateLocal(k);
            int b = cb.allocateLocal(k);
            // As the C++: lanes a power of two from 1 to 32, and at most a block, or nothing is written.
            cb.lload(lanes).lconst_1().lcmp().iflt(end);
            cb.lload(lanes).loadConstant(32L).lcmp().ifgt(end);
            cb.lload(lanes).invokestatic(ConstantDescs.CD_Long, "bitCount", bitCount).iconst_1().if_icmpne(end);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).i2l().lload(lanes).ldiv().lstore(perBlock);
            cb.lload(perBlock).lconst_0().lcmp().ifle(end);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).iconst_1().isub().i2l().lload(perBlock).lmul().lstore(skip);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxX", intGetter).i2l().lload(perBlock).lmul()
                    .lstore(o);
            JavaCode code = new JavaCode(cb, access(slots, position, i, o, total, a, b));
            Label rows = cb.newLabel();
            Label sameBlock = cb.newLabel();
            cb.labelBinding(rows);
            cb.lload(o).lload(count).lcmp().ifge(end);
            cb.lload(o).lload(cols).lmul().lstore(start);
            clampedLength(cb, start, cols, total, length);
            reduceRun(cb, code, start, length, kk, i, a, b);
            code.statements(postMap);
            // the next row: the block's next, or past its rows the first of its next pass
            cb.lload(o).lconst_1().ladd().lstore(o);
            cb.lload(o).lload(perBlock).lrem().lconst_0().lcmp().ifne(sameBlock);
            cb.lload(o).lload(skip).ladd().lstore(o);
            cb.labelBinding(sameBlock);
            cb.goto_(rows);
            cb.labelBinding(end);
            cb.return_();
        }, tooLarge);
    }

    /**
     * The row-chunk kernel in Java: thread 0 of block {@code (x, y)} reduces chunk {@code y} of row {@code x} (and of
     * every {@code gridDim.x}-th row after it) in column order into its partial, as the C++ indexes them; the block's
     * other threads return.
     */
    JavaKernel rowPartialsJava(String kernelName, List<Symbol> symbols, Map<String, Integer> position) {
        MethodTypeDesc intGetter = MethodTypeDesc.of(ConstantDescs.CD_int);
        MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
        MethodTypeDesc longPair = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_long, ConstantDescs.CD_long);
        MethodTypeDesc unsignedCompare = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long, ConstantDescs.CD_long);
        TypeKind k = JavaCode.kind(acc);
        return Generated.kernel(kernelName, cb -> {
            Label end = threadZeroOnly(cb);
            int[] slots = Params.load(cb, symbols);
            int[] geometry = geometry(cb, symbols.size(), ReductionCode.ROW_CHUNK_GEOMETRY.size());
            int rowCount = geometry[0];
            int cols = geometry[1];
            int chunkCols = geometry[2];
            int count = geometry[3];
            int total = geometry[4];
            int chunks = cb.allocateLocal(TypeKind.LONG);
            int chunk = cb.allocateLocal(TypeKind.LONG);
            int column = cb.allocateLocal(TypeKind.LONG);
            int width = cb.allocateLocal(TypeKind.LONG);
            int step = cb.allocateLocal(TypeKind.LONG);
            int o = cb.allocateLocal(TypeKind.LONG);
            int start = cb.allocateLocal(TypeKind.LONG);
            int length = cb.allocateLocal(TypeKind.LONG);
            int v = cb.allocateLocal(TypeKind.LONG);
            int kk = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            int a = cb.allocateLocal(k);
            int b = cb.allocateLocal(k);
            cb.lload(chunkCols).lconst_1().lcmp().iflt(end);
            // chunks = cols / chunkCols, plus one for a remainder, as the C++ counts them
            cb.lload(cols).lload(chunkCols).ldiv().lstore(chunks);
            Label even = cb.newLabel();
            cb.lload(cols).lload(chunkCols).lrem().lconst_0().lcmp().ifeq(even);
            cb.lload(chunks).lconst_1().ladd().lstore(chunks);
            cb.labelBinding(even);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxY", intGetter).i2l().lstore(chunk);
            cb.lload(chunk).lload(chunks).lcmp().ifge(end);
            cb.lload(chunk).lload(chunkCols).lmul().lstore(column);
            cb.lload(cols).lload(column).lsub().lload(chunkCols).invokestatic(MATH, "min", longPair).lstore(width);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxX", intGetter).i2l().lstore(o);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).i2l().lstore(step);
            JavaCode code = new JavaCode(cb, access(slots, position, i, o, total, a, b));
            Label rows = cb.newLabel();
            Label written = cb.newLabel();
            cb.labelBinding(rows);
            cb.lload(o).lload(rowCount).lcmp().ifge(end);
            cb.lload(o).lload(cols).lmul().lload(column).ladd().lstore(start);
            clampedLength(cb, start, width, total, length);
            reduceRun(cb, code, start, length, kk, i, a, b);
            cb.lload(o).lload(chunks).lmul().lload(chunk).ladd().lstore(v);
            cb.lload(v).lload(count).invokestatic(ConstantDescs.CD_Long, "compareUnsigned", unsignedCompare).ifge(written);
            cb.loadLocal(k, a);
            JavaCode.storeElement(cb, slots[position.get(ReductionCode.PARTIALS)], v, acc);
            cb.labelBinding(written);
            cb.lload(o).lload(step).ladd().lstore(o);
            cb.goto_(rows);
            cb.labelBinding(end);
            cb.return_();
        }, tooLarge);
    }

    /** Sends every thread but thread 0 of its block to the label returned, which the kernel binds at its end. */
    private static Label threadZeroOnly(CodeBuilder cb) {
        Label end = cb.newLabel();
        cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "threadIdxX", MethodTypeDesc.of(ConstantDescs.CD_int))
                .ifne(end);
        return end;
    }

    /**
     * Folds element {@code i} into {@code a}: {@code b} = its mapped value (or, with {@code partials} a slot, the
     * partial value there), then {@code a} = reduce(a, b).
     */
    private void fold(CodeBuilder cb, JavaCode code, int partials, int i, int a, int b) {
        TypeKind k = JavaCode.kind(acc);
        if (partials >= 0) {
            JavaCode.loadElement(cb, partials, i, acc);
        } else {
            code.converted(map, acc);
        }
        cb.storeLocal(k, b);
        code.converted(reduce, acc);
        cb.storeLocal(k, a);
    }

    /** Writes {@code a} as result {@code o}: into the partials at slot {@code partials}, or through the post-map. */
    private void write(CodeBuilder cb, JavaCode code, int partials, int o, int a) {
        if (partials >= 0) {
            cb.loadLocal(JavaCode.kind(acc), a);
            JavaCode.storeElement(cb, partials, o, acc);
        } else {
            code.statements(postMap);
        }
    }

    /** Loads the launch's {@code size} geometry arguments, after its {@code params} others, into new long locals. */
    private static int[] geometry(CodeBuilder cb, int params, int size) {
        MethodTypeDesc longArg = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_int);
        int[] geometry = new int[size];
        for (int g = 0; g < size; g++) {
            geometry[g] = cb.allocateLocal(TypeKind.LONG);
            cb.aload(1).loadConstant(params + g).invokeinterface(Generated.KERNEL_THREAD, "longArg", longArg)
                    .lstore(geometry[g]);
        }
        return geometry;
    }

    /**
     * As the C++ that {@link ReductionCode} writes: {@code length} = the elements of {@code width} from {@code start}
     * below {@code total}.
     */
    private static void clampedLength(CodeBuilder cb, int start, int width, int total, int length) {
        MethodTypeDesc longPair = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_long, ConstantDescs.CD_long);
        MethodTypeDesc unsignedCompare = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long, ConstantDescs.CD_long);
        Label inside = cb.newLabel();
        Label done = cb.newLabel();
        cb.lload(start).lload(total).invokestatic(ConstantDescs.CD_Long, "compareUnsigned", unsignedCompare).iflt(inside);
        cb.lconst_0().lstore(length);
        cb.goto_(done);
        cb.labelBinding(inside);
        cb.lload(total).lload(start).lsub().lload(width).invokestatic(MATH, "min", longPair).lstore(length);
        cb.labelBinding(done);
    }

    /** {@code a} = the identity, then reduced with the map of elements {@code start .. start + length - 1} in order. */
    private void reduceRun(CodeBuilder cb, JavaCode code, int start, int length, int kk, int i, int a, int b) {
        TypeKind k = JavaCode.kind(acc);
        Label elements = cb.newLabel();
        Label done = cb.newLabel();
        code.converted(identity, acc);
        cb.storeLocal(k, a);
        cb.lconst_0().lstore(kk);
        cb.labelBinding(elements);
        cb.lload(kk).lload(length).lcmp().ifge(done);
        cb.lload(start).lload(kk).ladd().lstore(i);
        fold(cb, code, -1, i, a, b);
        cb.lload(kk).lconst_1().ladd().lstore(kk);
        cb.goto_(elements);
        cb.labelBinding(done);
    }
}
