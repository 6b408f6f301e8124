package dev.sluice.cuda;

import dev.sluice.spi.EventHandle;
import jcuda.driver.CUevent;
import jcuda.driver.JCudaDriver;

/** A user event ({@code DeviceEvent}): created by JCuda with the flags asked for, recorded through {@link Cu}. */
final class CudaEvent implements EventHandle {

    private final CudaContext context;
    final CUevent event;
    final long address;

    CudaEvent(CudaContext context, CUevent event) {
        this.context = context;
        this.event = event;
        this.address = Jc.address(event);
    }

    @Override
    public boolean query() {
        context.cu.bind();
        int r = Cu.eventQuery(address);
        if (r == Cu.SUCCESS) {
            return true;
        }
        if (r == Cu.ERROR_NOT_READY) {
            return false;
        }
        throw Cu.error(r, "cuEventQuery");
    }

    @Override
    public void synchronize() {
        context.cu.bind();
        Jc.check(JCudaDriver.cuEventSynchronize(event), "cuEventSynchronize");
    }

    @Override
    public float elapsedMillis(EventHandle end) {
        context.cu.bind();
        float[] ms = new float[1];
        Jc.check(JCudaDriver.cuEventElapsedTime(ms, event, ((CudaEvent) end).event), "cuEventElapsedTime");
        return ms[0];
    }

    @Override
    public long nativeHandle() {
        return address;
    }

    @Override
    public void destroy() {
        context.cu.bind();
        JCudaDriver.cuEventDestroy(event);
    }
}
