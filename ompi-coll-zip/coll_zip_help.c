/*
 * User-facing messages. opal_show_help only searches Open MPI's own data directory and the
 * directories added to it; an out-of-tree component adds its install directory and the
 * directory its .so was loaded from, and falls back to a plain opal_output line when the
 * help file is missing, so that a message is never lost to "Sorry! You were supposed to
 * get help about...".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "ompi_config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "coll_zip.h"
#include "coll_zip_help.h"

#ifndef COLL_ZIP_HELP_DIR
#define COLL_ZIP_HELP_DIR "/usr/local/share/ompi-zip"
#endif

static const char help_file[] = "help-coll-zip.txt";
static bool help_file_found = false;

static bool try_dir(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/%s", dir, help_file) >= (int)sizeof(path)) {
        return false;
    }
    if (0 != access(path, R_OK)) {
        return false;
    }
    opal_show_help_add_dir(dir);
    return true;
}

void mca_coll_zip_help_init(void)
{
    Dl_info info;
    char dir[PATH_MAX];

    help_file_found = try_dir(COLL_ZIP_HELP_DIR);
    if (0 != dladdr((void *)mca_coll_zip_help_init, &info) && NULL != info.dli_fname) {
        snprintf(dir, sizeof(dir), "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        char absolute[PATH_MAX];
        /* A relative component path (--mca mca_base_component_path build/...) must become
         * absolute: mpirun, which prints forwarded help, resolves it elsewhere. */
        if (NULL != slash) {
            *slash = '\0';
            const char *where = NULL != realpath(dir, absolute) ? absolute : dir;
            help_file_found = try_dir(where) || help_file_found;
        }
    }
}

static void print_plain(const char *plain_format, va_list ap)
{
    char *text = NULL;
    if (vasprintf(&text, plain_format, ap) >= 0) {
        opal_output(0, "coll:zip: %s", text);
        free(text);
    }
}

void mca_coll_zip_show_help(const char *topic, const char *plain_format, ...)
{
    va_list ap;
    va_start(ap, plain_format);
    if (help_file_found) {
        opal_show_vhelp(help_file, topic, true, ap);
    } else {
        print_plain(plain_format, ap);
    }
    va_end(ap);
}

void mca_coll_zip_show_help_now(const char *topic, const char *plain_format, ...)
{
    va_list ap;
    va_start(ap, plain_format);
    char *text = help_file_found ? opal_show_help_vstring(help_file, topic, true, ap) : NULL;
    va_end(ap);
    if (NULL != text) {
        opal_output(0, "%s", text);
        free(text);
        return;
    }
    va_start(ap, plain_format);
    print_plain(plain_format, ap);
    va_end(ap);
}
