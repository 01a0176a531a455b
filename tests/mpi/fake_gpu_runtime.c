/*
 * Stands in for a GPU driver's library in the pml/zip and coll/zip tests: built as a shared
 * object named libcuda.so.1 (its soname too) and preloaded into the processes a test makes GPU
 * processes, it is what zip finds loaded (common/gpu_runtime.h). It provides nothing else.
 */
int zip_test_fake_gpu_runtime = 1;
