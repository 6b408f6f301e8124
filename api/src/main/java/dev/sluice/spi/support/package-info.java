/**
 * Building blocks for backend authors, shared by the CUDA and HIP backends: not part of the API that programs use.
 */
@NullMarked
package dev.sluice.spi.support;

import org.jspecify.annotations.NullMarked;
