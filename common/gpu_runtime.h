/*
 * Whether a GPU driver runtime is loaded in this process.
 *
 * A CUDA- or ROCm-aware MPI (pml/ucx over UCX's CUDA, ROCm or Level Zero transports, or Open MPI
 * built with CUDA) accepts device pointers in MPI calls, and zip, which reads and writes message
 * data with the CPU, must then leave those calls to the MPI below it. Such an MPI loads the
 * driver's library while MPI_Init selects its PML (UCX opens its GPU transports then), so a
 * process where none is loaded by the end of that selection cannot be handed device memory: its
 * MPI would fault on it too. The libraries are looked up by soname without loading anything
 * (dlopen RTLD_NOLOAD).
 */
#ifndef ZIP_GPU_RUNTIME_H
#define ZIP_GPU_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

/* The sonames looked for, NULL-terminated: CUDA's driver, ROCm's HSA runtime, Level Zero's
 * loader. */
extern const char *const zip_gpu_runtime_sonames[];

/* The first of `sonames` (NULL-terminated) loaded in this process, or NULL. */
const char *zip_gpu_loaded_from(const char *const *sonames);

/* zip_gpu_loaded_from(zip_gpu_runtime_sonames). */
const char *zip_gpu_runtime_loaded(void);

#ifdef __cplusplus
}
#endif

#endif
