package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DeviceFaultsTest {

    @Test
    void theLastUserOfAFaultedDeviceResetsItAndOnlyThatOne() {
        DeviceFaults f = new DeviceFaults();
        f.acquire(0);
        f.acquire(0);
        f.markFaulted(0);
        assertTrue(f.isFaulted(0));
        assertFalse(f.release(0, false), "another user is still open: the device stays poisoned");
        assertTrue(f.isFaulted(0));
        assertTrue(f.release(0, false), "the last one resets");
        assertFalse(f.isFaulted(0), "counted clean after the reset");
        assertEquals(0, f.users(0));
    }

    @Test
    void aFaultSeenAtCloseCountsAsAFaultOfTheDevice() {
        DeviceFaults f = new DeviceFaults();
        f.acquire(1);
        f.acquire(1);
        assertFalse(f.release(1, true));
        assertTrue(f.isFaulted(1));
        assertTrue(f.release(1, false));
    }

    @Test
    void aCleanDeviceIsNeverReset() {
        DeviceFaults f = new DeviceFaults();
        f.acquire(0);
        assertFalse(f.release(0, false));
    }

    @Test
    void devicesAreKeptApart() {
        DeviceFaults f = new DeviceFaults();
        f.acquire(0);
        f.acquire(1);
        f.markFaulted(1);
        assertFalse(f.isFaulted(0));
        assertFalse(f.release(0, false));
        assertTrue(f.release(1, false));
    }

    @Test
    void aFaultFoundWithNoUserIsForgottenAfterReset() {
        DeviceFaults f = new DeviceFaults();
        f.markFaulted(2);
        assertTrue(f.isFaulted(2));
        f.reset(2);
        assertFalse(f.isFaulted(2));
    }

    @Test
    void releasingADeviceWithNoUserIsRefused() {
        DeviceFaults f = new DeviceFaults();
        var e = assertThrows(IllegalStateException.class, () -> f.release(3, false));
        assertEquals("device 3 has no open user to release", e.getMessage());
    }
}
