package dev.sluice.cuda;

import java.util.HashMap;
import java.util.Map;
import java.util.logging.Logger;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * Layer 2: a CUDA context, either the device's primary context (shared with every other library in the
 * process, like the runtime API's) or one created for Sluice alone, and its binding to threads.
 *
 * <p>Primary contexts are retained once per device and kept: retaining and releasing one per
 * {@code DeviceContext} would destroy and re-create it (hundreds of milliseconds) whenever the last user
 * closed. A primary context that faulted (sticky error) is released once its last Sluice user closes, which
 * resets it; while users of a faulted one remain, new contexts on that device are created contexts instead.
 */
final class CuContext {

    private static final Logger LOG = Logger.getLogger(CuContext.class.getName());

    /** Per device: the retained primary context, its Sluice users, and whether it faulted. */
    private static final class Primary {
        CUcontext context;
        long address;
        int users;
        boolean faulted;
    }

    private static final Map<Integer, Primary> PRIMARIES = new HashMap<>();

    final int ordinal;
    final CUdevice device;
    final CUcontext context;
    final long address;
    final boolean primary;
    private volatile boolean faulted;

    private CuContext(int ordinal, CUdevice device, CUcontext context, boolean primary) {
        this.ordinal = ordinal;
        this.device = device;
        this.context = context;
        this.address = Jc.address(context);
        this.primary = primary;
    }

    static CuContext open(int ordinal, boolean primary) {
        CUdevice d = new CUdevice();
        Jc.check(JCudaDriver.cuDeviceGet(d, ordinal), "cuDeviceGet(" + ordinal + ")");
        if (primary) {
            synchronized (PRIMARIES) {
                Primary p = PRIMARIES.get(ordinal);
                if (p != null && p.faulted && p.users == 0) {
                    // Released by the last user already; the next retain gets a fresh (reset) context.
                    PRIMARIES.remove(ordinal);
                    p = null;
                }
                if (p == null) {
                    p = new Primary();
                    p.context = new CUcontext();
                    Jc.check(JCudaDriver.cuDevicePrimaryCtxRetain(p.context, d), "cuDevicePrimaryCtxRetain");
                    p.address = Jc.address(p.context);
                    PRIMARIES.put(ordinal, p);
                }
                if (!p.faulted) {
                    p.users++;
                    CuContext c = new CuContext(ordinal, d, p.context, true);
                    c.bind();
                    return c;
                }
                LOG.warning("the primary context of CUDA device " + ordinal + " faulted and is still in use;"
                        + " creating a context of its own instead");
            }
        }
        CUcontext c = new CUcontext();
        Jc.check(JCudaDriver.cuCtxCreate(c, 0, d), "cuCtxCreate");
        CuContext ctx = new CuContext(ordinal, d, c, false);
        ctx.bind();
        return ctx;
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
                    p.faulted = true;
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
                    p.users--;
                    if (p.faulted && p.users == 0) {
                        int r = JCudaDriver.cuDevicePrimaryCtxRelease(device);
                        if (r != 0) {
                            LOG.fine("cuDevicePrimaryCtxRelease: " + Cu.errorName(r));
                        }
                        PRIMARIES.remove(ordinal);
                    }
                }
            }
            return;
        }
        int r = JCudaDriver.cuCtxDestroy(context);
        if (r != 0) {
            LOG.fine("cuCtxDestroy: " + Cu.errorName(r));
        }
    }
}
