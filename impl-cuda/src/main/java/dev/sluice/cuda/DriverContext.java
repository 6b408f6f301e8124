package dev.sluice.cuda;

import dev.sluice.ContextFlag;
import dev.sluice.DeviceException;
import dev.sluice.InvalidArgumentException;
import dev.sluice.spi.support.DeviceFaults;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * Handles layer: a CUDA context, either the device's primary context (shared with every other library in the
 * process, like the runtime API's) or one created for Sluice alone, and its binding to threads.
 *
 * <p>Primary contexts are retained once per device and kept: retaining and releasing one per
 * {@code DeviceContext} would destroy and re-create it (hundreds of milliseconds) whenever the last user
 * closed. A device fault in any context of the process poisons every context on that device (they share one
 * GPU address space), the primary one included: a poisoned primary context is reset when its last Sluice user
 * closes (or at the next open, if it was found poisoned then); while users of a poisoned one remain, new
 * contexts on that device are created contexts instead.
 */
final class DriverContext {

    private static final Logger LOG = System.getLogger(DriverContext.class.getName());

    /** Per device: the retained primary context. */
    private static final class Primary {
        CUcontext context;
        long address;
    }

    /** Guarded by itself, and taken before {@link #PRIMARY_USE}'s lock. */
    private static final Map<Integer, Primary> PRIMARIES = new HashMap<>();
    /** Per device: the Sluice users of its primary context and whether that faulted (the kit's poisoning policy). */
    private static final DeviceFaults PRIMARY_USE = new DeviceFaults();

    final int ordinal;
    final CUdevice device;
    final CUcontext context;
    final long address;
    final boolean primary;
    private volatile boolean faulted;

    private DriverContext(int ordinal, CUdevice device, CUcontext context, boolean primary) {
        this.ordinal = ordinal;
        this.device = device;
        this.context = context;
        this.address = Jc.address(context);
        this.primary = primary;
    }

    /**
     * Opens device {@code ordinal}'s primary context or a context of its own, with {@code flags} (none: the primary
     * context's flags are left as they are).
     *
     * @throws InvalidArgumentException naming {@code contextFlags} where the primary context cannot take them
     */
    static DriverContext open(int ordinal, boolean primary, Set<ContextFlag> flags) {
        int bits = bits(flags);
        CUdevice d = new CUdevice();
        Jc.check(JCudaDriver.cuDeviceGet(d, ordinal), "cuDeviceGet(" + ordinal + ")");
        if (primary) {
            synchronized (PRIMARIES) {
                Primary p = PRIMARIES.get(ordinal);
                if (p == null) {
                    p = retainPrimary(ordinal, d);
                    PRIMARIES.put(ordinal, p);
                }
                if (!PRIMARY_USE.isFaulted(ordinal) && isSticky(healthOf(p.address))) {
                    // A fault in any context of this process (they share one address space) poisons the primary too.
                    PRIMARY_USE.markFaulted(ordinal);
                }
                if (PRIMARY_USE.isFaulted(ordinal) && PRIMARY_USE.users(ordinal) == 0) {
                    // No Sluice user left: reset it (the driver destroys its state) and start over.
                    int r = Cu.devicePrimaryCtxReset(ordinal);
                    if (r != Cu.SUCCESS) {
                        LOG.log(Level.DEBUG, "cuDevicePrimaryCtxReset: " + Cu.errorName(r));
                    }
                    PRIMARY_USE.reset(ordinal);
                    p = retainPrimary(ordinal, d);
                    PRIMARIES.put(ordinal, p);
                }
                if (!PRIMARY_USE.isFaulted(ordinal)) {
                    if (!flags.isEmpty()) {
                        setPrimaryFlags(ordinal, d, p, flags, bits);
                    }
                    PRIMARY_USE.acquire(ordinal);
                    DriverContext c = new DriverContext(ordinal, d, p.context, true);
                    c.bind();
                    return c;
                }
                LOG.log(Level.WARNING, "the primary context of CUDA device " + ordinal + " faulted and is still in use by "
                        + PRIMARY_USE.users(ordinal) + " context(s); creating a context of its own instead");
            }
        }
        CUcontext c = new CUcontext();
        checkOpen(JCudaDriver.cuCtxCreate(c, bits, d), "cuCtxCreate", ordinal);
        DriverContext ctx = new DriverContext(ordinal, d, c, false);
        ctx.bind();
        return ctx;
    }

    /** The {@code CUctx_flags} bit of {@code flag}. */
    private static int bit(ContextFlag flag) {
        return switch (flag) {
            case SCHEDULE_SPIN -> 0x1;
            case SCHEDULE_YIELD -> 0x2;
            case SCHEDULE_BLOCKING_SYNC -> 0x4;
            case LOCAL_MEMORY_RESIZE_TO_MAX -> 0x10;
            case COREDUMP_ON_EXCEPTION -> 0x20;
            case SYNC_MEMORY_OPERATIONS -> 0x80;
        };
    }

    static int bits(Set<ContextFlag> flags) {
        int bits = 0;
        for (ContextFlag f : flags) {
            bits |= bit(f);
        }
        return bits;
    }

    /** The flags among {@code bits} that Sluice names (the driver also reports CU_CTX_MAP_HOST, always on). */
    static Set<ContextFlag> flags(int bits) {
        EnumSet<ContextFlag> s = EnumSet.noneOf(ContextFlag.class);
        for (ContextFlag f : ContextFlag.values()) {
            int b = bit(f);
            // the scheduling flags are a 3-bit field (CU_CTX_SCHED_MASK): compare the field, not single bits
            if (b <= 0x4 ? (bits & 0x7) == b : (bits & b) != 0) {
                s.add(f);
            }
        }
        return Collections.unmodifiableSet(s);
    }

    /**
     * Sets {@code flags} on the primary context: it is the process's, so it is refused while other Sluice contexts use
     * it with other flags (they would change under them). Under the {@code PRIMARIES} lock.
     */
    private static void setPrimaryFlags(int ordinal, CUdevice d, Primary p, Set<ContextFlag> flags, int bits) {
        int[] current = new int[1];
        int[] active = new int[1];
        Jc.check(JCudaDriver.cuDevicePrimaryCtxGetState(d, current, active), "cuDevicePrimaryCtxGetState");
        Set<ContextFlag> now = flags(current[0]);
        if (now.equals(flags)) {
            return;
        }
        int users = PRIMARY_USE.users(ordinal);
        if (users > 0) {
            throw new InvalidArgumentException("contextFlags", "value " + flags + ": the primary context of CUDA device "
                    + ordinal + " is in use by " + users + " Sluice context(s) with flags " + now
                    + "; open with withPrimaryContext(false) for a context of its own with these flags");
        }
        int r = JCudaDriver.cuDevicePrimaryCtxSetFlags(d, bits);
        if (r != Cu.SUCCESS) {
            throw new InvalidArgumentException("contextFlags", "value " + flags + ": cuDevicePrimaryCtxSetFlags on CUDA device "
                    + ordinal + " failed with " + Cu.errorName(r) + "; open with withPrimaryContext(false) for a context"
                    + " of its own with these flags");
        }
    }

    /** The flags of this context as the driver reports them. */
    Set<ContextFlag> currentFlags() {
        bind();
        int[] f = new int[1];
        Jc.check(JCudaDriver.cuCtxGetFlags(f), "cuCtxGetFlags");
        return flags(f[0]);
    }

    private static Primary retainPrimary(int ordinal, CUdevice d) {
        Primary p = new Primary();
        p.context = new CUcontext();
        int r = JCudaDriver.cuDevicePrimaryCtxRetain(p.context, d);
        if (Cu.isSticky(r)) {
            Cu.devicePrimaryCtxReset(ordinal);
            r = JCudaDriver.cuDevicePrimaryCtxRetain(p.context, d);
        }
        checkOpen(r, "cuDevicePrimaryCtxRetain", ordinal);
        p.address = Jc.address(p.context);
        return p;
    }

    /**
     * A sticky error at open means an earlier fault poisoned this whole process: the CUDA driver keeps errors such as
     * an illegal address until the process ends ("the process must be terminated and relaunched"), in every context
     * of every device, new ones included (on two H200s, a context of device 1 that the driver API made outside Sluice
     * fails with a fault on device 0: CudaFaultIsolationTest). Say so rather than only naming the error.
     */
    private static void checkOpen(int r, String call, int ordinal) {
        if (r != Cu.SUCCESS && Cu.isSticky(r)) {
            String name = Cu.errorName(r);
            throw new DeviceException(call + " failed: " + name + " (" + r + ") opening CUDA device " + ordinal
                    + ": a device faulted earlier in this process, and the CUDA driver keeps that error for the life of the"
                    + " process in every context of every device; restart the process to use a GPU again", name, r, true, null);
        }
        Jc.check(r, call);
    }

    /** A non-blocking look at a context's sticky error: the result of querying its legacy stream. */
    private static int healthOf(long context) {
        long previous = Cu.ctxGetCurrent();
        if (previous != context) {
            Cu.check(Cu.ctxSetCurrent(context), "cuCtxSetCurrent");
        }
        return Cu.streamQuery(0L);
    }

    private static boolean isSticky(int r) {
        return r != Cu.SUCCESS && r != Cu.ERROR_NOT_READY && Cu.isSticky(r);
    }

    /**
     * Makes this context current on the calling thread unless it already is. Reads the driver's current
     * context each time (a few nanoseconds) rather than trusting a cache, since other code on the same thread
     * (another library, a user's JCuda call in a completion stage) may have switched it.
     */
    void bind() {
        if (Cu.ctxGetCurrent() != address) {
            Cu.check(Cu.ctxSetCurrent(address), "cuCtxSetCurrent");
        }
    }

    /** Called when a marker reported a sticky error in this context. */
    void markFaulted() {
        faulted = true;
        if (primary) {
            synchronized (PRIMARIES) {
                Primary p = PRIMARIES.get(ordinal);
                if (p != null && p.address == address) {
                    PRIMARY_USE.markFaulted(ordinal);
                }
            }
        }
    }

    boolean isFaulted() {
        return faulted;
    }

    /** Releases the primary context (resetting it if it faulted and this was its last user) or destroys a created one. */
    void close() {
        if (primary) {
            synchronized (PRIMARIES) {
                Primary p = PRIMARIES.get(ordinal);
                if (p != null && p.address == address) {
                    // Only the last user asks the driver: a poisoned primary context is reset once nobody uses it.
                    boolean last = PRIMARY_USE.users(ordinal) == 1;
                    boolean poisoned = faulted || last && (PRIMARY_USE.isFaulted(ordinal) || isSticky(healthOf(address)));
                    if (PRIMARY_USE.release(ordinal, poisoned)) {
                        // The last user of a poisoned primary context: reset it now, so the next open gets a clean one.
                        int r = Cu.devicePrimaryCtxReset(ordinal);
                        if (r != 0) {
                            LOG.log(Level.DEBUG, "cuDevicePrimaryCtxReset: " + Cu.errorName(r));
                        }
                        JCudaDriver.cuDevicePrimaryCtxRelease(device);
                        PRIMARIES.remove(ordinal);
                    }
                }
            }
            return;
        }
        int r = JCudaDriver.cuCtxDestroy(context);
        if (r != 0) {
            LOG.log(Level.DEBUG, "cuCtxDestroy: " + Cu.errorName(r));
        }
    }
}
