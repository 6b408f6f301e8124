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

    /**
     * The default: {@code subtaskIndex % devices}, by the subtask's index in the whole job. With one TaskManager per GPU
     * (as docs/flink.md advises) every subtask of a TaskManager uses its one device; with several TaskManagers of
     * several devices each, the global indexes a TaskManager receives need not spread evenly over its devices.
     */
    static DeviceAssignment roundRobin() {
        return (subtaskIndex, devices) -> subtaskIndex % devices;
    }

    /**
     * Every subtask on the device at position {@code position}.
     *
     * @throws dev.sluice.InvalidArgumentException naming {@code position} if it is negative (a position past the
     *                                            TaskManager's devices is refused when the function opens, where their
     *                                            number is known)
     */
    static DeviceAssignment fixed(int position) {
        if (position < 0) {
            throw new dev.sluice.InvalidArgumentException("position", position + " is negative; device positions count"
                    + " from 0");
        }
        return (subtaskIndex, devices) -> position;
    }
}
