/* Compression ratio reported in zip rows: what the codec achieves on the payload. */
#ifndef ZIPBENCH_RATIO_H
#define ZIPBENCH_RATIO_H

#include <stddef.h>

/* raw bytes / compressed bytes of data[0..n) with codec `spec`, or NaN when zipbench was
 * built without the ompi-zip codec library (ZIPBENCH_HAVE_ZIP) or the spec is unknown. */
double zb_ratio(const char *spec, const double *data, size_t n);

#endif
