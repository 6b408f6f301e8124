package dev.sluice.flink;

import java.io.Serial;

/**
 * One element's failure in a {@link SluiceAsyncFunction}: its stage threw, returned null, completed exceptionally or
 * with null, or the function was closed under it. The message names the element (as {@code element 17 of subtask 2
 * (float[4096])}: its number within its subtask, the subtask's index, its type and size) and the device; the cause is the
 * stage's own exception where there is one. It fails that element's {@code ResultFuture} only; what follows is
 * Flink's: the job fails, or its restart strategy restarts it.
 */
public final class GpuStageException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    /** An element's failure described by {@code message}, caused by {@code cause} (or null). */
    public GpuStageException(String message, Throwable cause) {
        super(message, cause);
    }

    /** An element's failure described by {@code message}. */
    public GpuStageException(String message) {
        super(message);
    }
}
