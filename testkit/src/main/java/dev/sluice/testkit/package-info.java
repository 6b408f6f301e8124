/**
 * Test support for applications that use Sluice: {@link dev.sluice.testkit.SluiceExtension}, a JUnit 5 extension
 * that hands each test a fresh {@link dev.sluice.DeviceContext} of the selected backend (the CPU simulator unless the
 * system property {@code sluice.api} names another) and fails the test if it left a stream or buffer open, or if the
 * context faulted.
 */
@NullMarked
package dev.sluice.testkit;

import org.jspecify.annotations.NullMarked;
