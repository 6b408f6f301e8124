package dev.sluice.cuda;

/**
 * Kernels the backend itself needs, as hand-written PTX so that they load without NVRTC: a 64-bit fill
 * (the driver's memsets stop at 32 bits) and the host gate: one thread that polls a host-mapped flag with
 * system-scope acquire loads, sleeping a microsecond between polls. PTX ISA 6.3 for {@code sm_75} (or the device's own older
 * {@code sm_XY}), JIT-compiled by the driver for the device at hand.
 */
final class Builtins {

    private Builtins() {
    }

    static String ptx(int arch) {
        int target = Math.min(arch, 75);
        boolean sleep = target >= 70;
        return """
                .version 6.3
                .target sm_%d
                .address_size 64

                .visible .entry sluice_fill64(
                    .param .u64 dst,
                    .param .u64 n,
                    .param .u64 value
                )
                {
                    .reg .pred %%p<2>;
                    .reg .b32 %%r<5>;
                    .reg .b64 %%rd<10>;

                    ld.param.u64 %%rd1, [dst];
                    ld.param.u64 %%rd2, [n];
                    ld.param.u64 %%rd3, [value];
                    cvta.to.global.u64 %%rd4, %%rd1;
                    mov.u32 %%r1, %%ctaid.x;
                    mov.u32 %%r2, %%ntid.x;
                    mov.u32 %%r3, %%tid.x;
                    mul.wide.u32 %%rd5, %%r1, %%r2;
                    cvt.u64.u32 %%rd6, %%r3;
                    add.u64 %%rd5, %%rd5, %%rd6;
                    mov.u32 %%r4, %%nctaid.x;
                    mul.wide.u32 %%rd7, %%r4, %%r2;
                FILL_LOOP:
                    setp.ge.u64 %%p1, %%rd5, %%rd2;
                    @%%p1 bra FILL_DONE;
                    shl.b64 %%rd8, %%rd5, 3;
                    add.u64 %%rd9, %%rd4, %%rd8;
                    st.global.u64 [%%rd9], %%rd3;
                    add.u64 %%rd5, %%rd5, %%rd7;
                    bra FILL_LOOP;
                FILL_DONE:
                    ret;
                }

                .visible .entry sluice_gate_wait(
                    .param .u64 flag,
                    .param .u32 target
                )
                {
                    .reg .pred %%p<2>;
                    .reg .b32 %%r<4>;
                    .reg .b64 %%rd<2>;

                    ld.param.u64 %%rd1, [flag];
                    ld.param.u32 %%r1, [target];
                GATE_LOOP:
                    %s %%r2, [%%rd1];
                    sub.s32 %%r3, %%r2, %%r1;
                    setp.ge.s32 %%p1, %%r3, 0;
                    @%%p1 bra GATE_DONE;
                    %s
                    bra GATE_LOOP;
                GATE_DONE:
                    ret;
                }
                """.formatted(target, sleep ? "ld.acquire.sys.global.u32" : "ld.volatile.global.u32",
                        sleep ? "nanosleep.u32 1000;" : "");
    }
}
