package dev.sluice.spi;

/** An executable graph made from stream capture. */
public interface GraphHandle {

    /** Enqueues one replay of the graph on {@code stream}. */
    void launch(StreamHandle stream);

    /** Destroys the native graph; called once, when the public graph is closed. */
    void destroy();
}
