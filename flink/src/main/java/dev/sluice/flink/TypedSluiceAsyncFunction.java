package dev.sluice.flink;

import java.io.Serial;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.jspecify.annotations.Nullable;

/**
 * A {@link SluiceAsyncFunction} that declares its results' type to Flink ({@link ResultTypeQueryable}), so that the async
 * operator needs no {@code .returns(...)}: what {@link SluiceAsyncFunction#returns} makes. A class of its own because
 * Flink asks any {@link ResultTypeQueryable} function for its type and takes no "unknown" for an answer: a function whose
 * type is not known must not implement it.
 */
final class TypedSluiceAsyncFunction<IN, OUT> extends SluiceAsyncFunction<IN, OUT> implements ResultTypeQueryable<OUT> {
    @Serial
    private static final long serialVersionUID = 1L;

    private final TypeInformation<OUT> type;

    TypedSluiceAsyncFunction(GpuStage<IN, OUT> stage, int lanes, @Nullable DeviceAssignment assignment,
            @Nullable String backend, @Nullable Boolean fatalOnStickyFault, FatalErrorSignal fatalErrorSignal,
            TypeInformation<OUT> type) {
        super(stage, lanes, assignment, backend, fatalOnStickyFault, fatalErrorSignal, type);
        this.type = type;
    }

    @Override
    public TypeInformation<OUT> getProducedType() {
        return type;
    }
}
