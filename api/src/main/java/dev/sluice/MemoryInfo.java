package dev.sluice;

/** Free and total device memory in bytes, as the driver reports them (Mojo's {@code get_memory_info}). */
public record MemoryInfo(long free, long total) {
}
