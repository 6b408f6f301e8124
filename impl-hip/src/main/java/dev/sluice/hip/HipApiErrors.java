package dev.sluice.hip;

import dev.sluice.DeviceException;
import dev.sluice.DeviceOutOfMemoryException;
import dev.sluice.SluiceException;
import dev.sluice.UnsupportedOnBackendException;

/**
 * Turns {@code hipError_t} codes into typed {@link SluiceException}s that carry HIP's own name of the error
 * ({@code hipGetErrorName}) and its code. Codes that leave the device unusable (illegal address, kernel
 * failure, device assert...) become sticky {@link DeviceException}s, which fault the context.
 */
final class HipApiErrors {

    private HipApiErrors() {
    }

    /** Whether {@code code} is an error after which the device is unusable for the process. */
    static boolean isSticky(int code) {
        return switch (code) {
            case HipApiConstants.hipErrorIllegalAddress, HipApiConstants.hipErrorLaunchTimeOut, HipApiConstants.hipErrorAssert,
                    HipApiConstants.hipErrorLaunchFailure, HipApiConstants.hipErrorECCNotCorrectable,
                    HipApiConstants.hipErrorPriorLaunchFailure, HipApiConstants.hipErrorContextIsDestroyed,
                    714, 715, 716, 717, 718 -> true; // CUDA's hardware-exception codes, which HIP 6 also reports
            default -> false;
        };
    }

    /** The exception for {@code code} returned by {@code call}; {@code bytes} for allocations, else -1. */
    static SluiceException exception(HipApi api, String call, int code, long bytes) {
        String name = api.errorName(code);
        String text = api.errorString(code);
        String message = call + " failed: " + name + " (" + code + ")" + (text.isEmpty() || text.equals(name) ? "" : ": " + text);
        if (code == HipApiConstants.hipErrorOutOfMemory) {
            return new DeviceOutOfMemoryException(message + (bytes >= 0 ? "; " + bytes + " bytes were requested" : ""),
                    Math.max(bytes, 0), name, code);
        }
        if (code == HipApiConstants.hipErrorNotSupported) {
            return new UnsupportedOnBackendException(message + " (not supported on hip)");
        }
        return new DeviceException(message, name, code, isSticky(code), null);
    }
}
