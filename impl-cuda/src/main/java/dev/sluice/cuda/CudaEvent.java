package dev.sluice.cuda;

import dev.sluice.spi.support.Lifetime;
import dev.sluice.spi.EventHandle;
import jcuda.driver.CUevent;
import jcuda.driver.JCudaDriver;

/**
 * A user event ({@code DeviceEvent}): created by JCuda with the flags asked for, recorded through {@link Cu}. Every
 * driver call on it, records and waits of streams included, runs inside its {@link Lifetime}, so
 * {@code cuEventDestroy} runs exactly once, never under another call on it, and a call after {@link #destroy()}
 * throws {@link dev.sluice.ClosedResourceException} instead of reaching the driver with a destroyed event.
 */
final class CudaEvent implements EventHandle {

    private final CudaContext context;
    final CUevent event;
    final long address;
    private final Lifetime life;

    CudaEvent(CudaContext context, CUevent event) {
        this.context = context;
        this.event = event;
        this.address = Jc.address(event);
        this.life = new Lifetime(this, () -> {
            if (!context.isClosed()) { // a closed context took its events with it
                context.cu.bind();
                JCudaDriver.cuEventDestroy(event);
            }
        });
    }

    /** Marks a driver call on this event; pair with {@link #exit()}. */
    void enter() {
        life.enter();
    }

    void exit() {
        life.exit();
    }

    @Override
    public boolean query() {
        life.enter();
        try {
            context.cu.bind();
            int r = Cu.eventQuery(address);
            if (r == Cu.SUCCESS) {
                return true;
            }
            if (r == Cu.ERROR_NOT_READY) {
                return false;
            }
            throw Cu.error(r, "cuEventQuery");
        } finally {
            life.exit();
        }
    }

    /** Blocks in {@code cuEventSynchronize}; a concurrent {@link #destroy()} takes effect once it returns. */
    @Override
    public void synchronize() {
        life.enter();
        try {
            context.cu.bind();
            Jc.check(JCudaDriver.cuEventSynchronize(event), "cuEventSynchronize");
        } finally {
            life.exit();
        }
    }

    @Override
    public float elapsedMillis(EventHandle end) {
        CudaEvent e = (CudaEvent) end;
        life.enter();
        try {
            e.life.enter();
            try {
                context.cu.bind();
                float[] ms = new float[1];
                Jc.check(JCudaDriver.cuEventElapsedTime(ms, event, e.event), "cuEventElapsedTime");
                return ms[0];
            } finally {
                e.life.exit();
            }
        } finally {
            life.exit();
        }
    }

    @Override
    public long nativeHandle() {
        if (life.isClosed()) {
            throw new dev.sluice.ClosedResourceException(toString());
        }
        return address;
    }

    /** Idempotent and safe from any thread: destroys the event once, after the calls using it have returned. */
    @Override
    public void destroy() {
        life.close();
    }

    @Override
    public String toString() {
        return "CudaEvent[0x" + Long.toHexString(address) + "]";
    }
}
