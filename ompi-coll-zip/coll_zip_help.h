/* User-facing messages of coll/zip: help-coll-zip.txt with a plain-text fallback. */
#ifndef MCA_COLL_ZIP_HELP_H
#define MCA_COLL_ZIP_HELP_H

void mca_coll_zip_help_init(void);

/* Shows `topic` from help-coll-zip.txt; when the file cannot be found prints plain_format
 * instead. Both take the same arguments in the same order. */
void mca_coll_zip_show_help(const char *topic, const char *plain_format, ...);

/* The same, written to this process's stderr at once instead of being forwarded to mpirun,
 * for a message that MPI_Init's failure follows: a forwarded one can be lost with the process. */
void mca_coll_zip_show_help_now(const char *topic, const char *plain_format, ...);

#endif
