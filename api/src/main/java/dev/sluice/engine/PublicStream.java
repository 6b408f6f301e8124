package dev.sluice.engine;

/**
 * The public side of a stream, as the engine holds it: named in messages by its {@code toString()}, and handed back to
 * the public future as the stream of its operation ({@link StreamOrder#owner()}). {@code DeviceStream} implements it, so
 * the engine keeps a typed reference without naming the public handle.
 */
public interface PublicStream {
}
