package dev.sluice.engine;

/**
 * An operation the engine enqueues for itself, which no caller receives: the marker a host function waits for, the
 * marker of another stream that a wait names, the completion queue's first node.
 */
final class InternalOperation extends Operation<Void> {

    InternalOperation() {
        super(null);
    }
}
