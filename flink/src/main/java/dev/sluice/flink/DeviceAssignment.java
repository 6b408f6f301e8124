package dev.sluice.flink;

import java.io.Serializable;

/**
 * Which of the TaskManager's devices a subtask uses. Serializable: Flink ships it with the job.
 */
@FunctionalInterface
public interface DeviceAssignment extends Serializable {

    /**
     * The position, from 0 to {@code devices - 1}, of the device subtask {@code subtaskIndex} uses among the devices
     * this TaskManager has (those of Flink's external resource {@code gpu} in the order of their {@code index}, or
     * device 0 to {@code devices - 1} of the backend).
     */
    int device(int subtaskIndex, int devices);

    /** The default: {@code subtaskIndex % devices}, which spreads a TaskManager's slots evenly over its devices. */
    static DeviceAssignment roundRobin() {
        return (subtaskIndex, devices) -> subtaskIndex % devices;
    }

    /** Every subtask on the device at position {@code position}. */
    static DeviceAssignment fixed(int position) {
        return (subtaskIndex, devices) -> position;
    }
}
