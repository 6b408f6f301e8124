/*
 * Prototypes of the HIP functions the Sluice HIP backend binds that appeared after HIP 5.2, whose headers
 * are copied beside this file. Copied from HIP 6's hip/hip_runtime_api.h (Copyright (c) 2015 - 2024
 * Advanced Micro Devices, Inc., MIT licence, the same text as in hip/hip_runtime_api.h here), so that the
 * test library hip_over_cuda.c is checked against them too. hipLimitStackSize (0) is HIP 6's as well.
 */
#ifndef SLUICE_HIP_AFTER_5_2_H
#define SLUICE_HIP_AFTER_5_2_H

#include <hip/hip_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value);

hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned int gridDimX,
                                            unsigned int gridDimY, unsigned int gridDimZ,
                                            unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes,
                                            hipStream_t stream, void** kernelParams);

#ifdef __cplusplus
}
#endif

#endif
