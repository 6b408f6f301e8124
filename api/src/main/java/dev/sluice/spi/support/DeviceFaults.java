package dev.sluice.spi.support;

import java.util.HashMap;
import java.util.Map;

/**
 * The poisoning policy of a backend whose device faults are sticky for the whole process (CUDA's primary context,
 * a HIP device): a fault seen through any context poisons the device for every context on it, the device stays
 * poisoned while any of them is open, and the last one to close resets it so that contexts opened later work again.
 * This registry counts the open users of each device and remembers which faulted; the backend does the native
 * reset when {@link #release} tells it to.
 *
 * <p>For backend authors: thread-safe under one lock, never held during a native call; one registry per backend
 * (per process), keyed by device ordinal.
 */
public final class DeviceFaults {

    /** An empty registry: no device has users or faults yet. */
    public DeviceFaults() {
    }

    private static final class Device {
        int users;
        boolean faulted;
    }

    private final Map<Integer, Device> devices = new HashMap<>();

    /** Counts a new user (a context opened) of {@code device}. */
    public synchronized void acquire(int device) {
        devices.computeIfAbsent(device, d -> new Device()).users++;
    }

    /** Notes a fault on {@code device}: it stays poisoned until its last user has closed. Idempotent. */
    public synchronized void markFaulted(int device) {
        devices.computeIfAbsent(device, d -> new Device()).faulted = true;
    }

    /** Whether {@code device} faulted since it was last reset. */
    public synchronized boolean isFaulted(int device) {
        Device d = devices.get(device);
        return d != null && d.faulted;
    }

    /** How many users of {@code device} are open. */
    public synchronized int users(int device) {
        Device d = devices.get(device);
        return d == null ? 0 : d.users;
    }

    /**
     * Counts a user of {@code device} gone.
     *
     * @param faulted whether that user saw a fault (marks the device as by {@link #markFaulted})
     * @return true for exactly the last user of a faulted device: the caller must reset the device now; the registry
     *         already counts it clean
     * @throws IllegalStateException naming the device if it has no open user
     */
    public synchronized boolean release(int device, boolean faulted) {
        Device d = devices.get(device);
        if (d == null || d.users == 0) {
            throw new IllegalStateException("device " + device + " has no open user to release");
        }
        d.users--;
        d.faulted |= faulted;
        if (d.users > 0) {
            return false;
        }
        devices.remove(device);
        return d.faulted;
    }

    /**
     * Forgets a fault of {@code device} once the backend has reset it while no user was open (found poisoned at open).
     */
    public synchronized void reset(int device) {
        Device d = devices.get(device);
        if (d != null) {
            d.faulted = false;
            if (d.users == 0) {
                devices.remove(device);
            }
        }
    }
}
