package dev.sluice.flink;

import org.apache.flink.configuration.Configuration;

/**
 * A stage of this module with settings of its own among {@link SluiceOptions}: its function hands it the subtask's
 * settings (the job's parameters over the TaskManager's configuration) before {@link GpuStage#open}, so that what its
 * builder left unset comes from there, with the same precedence as the function's own settings.
 */
interface ConfiguredStage {

    /**
     * Takes what this stage needs from {@code settings}; on Flink's task thread, once per subtask, before
     * {@link GpuStage#open}.
     *
     * @throws dev.sluice.InvalidArgumentException naming the option for a value out of its bounds
     */
    void configure(Configuration settings);
}
