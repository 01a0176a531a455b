/* The msgrec tests' expectations and their check against the recorder's files (msgrec_expect.h). */
#include "msgrec_expect.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct expected {
    char op[32], elem[8];
    unsigned char *data;
    long bytes;
    int peer, tag, call;
} expected_t;

static expected_t *list;
static size_t used, cap;
static int current_call;

void expect_call(void)
{
    ++current_call;
}

void expect_msg(const char *op, const char *elem, const void *data, long bytes, int peer, int tag)
{
    if (used == cap) {
        cap = cap ? 2 * cap : 64;
        list = realloc(list, cap * sizeof *list);
        if (!list) {
            perror("expect_msg");
            exit(2);
        }
    }
    expected_t *e = &list[used++];
    snprintf(e->op, sizeof e->op, "%s", op);
    snprintf(e->elem, sizeof e->elem, "%s", elem);
    e->data = malloc((size_t)bytes);
    memcpy(e->data, data, (size_t)bytes);
    e->bytes = bytes;
    e->peer = peer;
    e->tag = tag;
    e->call = current_call;
}

static long env_long(const char *name, long fallback)
{
    const char *s = getenv(name);
    return s && *s ? atol(s) : fallback;
}

/* The summary the recorder must write for the declarations under the current settings. */
typedef struct summary {
    long recorded, recorded_bytes, small, small_bytes, over_limit, over_limit_bytes, unsampled;
} summary_t;

/* Marks which declarations the recorder keeps (README.md: size, then skip/every, then the byte
 * budget) and counts the rest as it does. */
static summary_t select_kept(int *kept)
{
    const long min = env_long("MSGREC_MIN_BYTES", 4096),
               max = env_long("MSGREC_MAX_BYTES", 64L << 20);
    const long skip = env_long("MSGREC_SKIP", 0), every = env_long("MSGREC_EVERY", 1);
    summary_t s = {0};
    long eligible = 0;
    for (size_t i = 0; i < used; ++i) {
        const expected_t *e = &list[i];
        kept[i] = 0;
        if (e->bytes < min) {
            ++s.small;
            s.small_bytes += e->bytes;
            continue;
        }
        long n = eligible++;
        if (n < skip || (n - skip) % every != 0) {
            ++s.unsampled;
            continue;
        }
        if (s.recorded_bytes + e->bytes > max) {
            ++s.over_limit;
            s.over_limit_bytes += e->bytes;
            continue;
        }
        kept[i] = 1;
        ++s.recorded;
        s.recorded_bytes += e->bytes;
    }
    return s;
}

static int fail(int rank, const char *what, long line)
{
    printf("FAIL: msgrec rank %d, index line %ld: %s\n", rank, line, what);
    return 1;
}

int expect_check(int rank)
{
    const char *dir = getenv("MSGREC_DIR");
    if (!dir) {
        printf("FAIL: msgrec rank %d: MSGREC_DIR is not set\n", rank);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%05d.idx", dir, rank);
    FILE *idx = fopen(path, "r");
    snprintf(path, sizeof path, "%s/rank%05d.dat", dir, rank);
    FILE *dat = fopen(path, "rb");
    if (!idx || !dat) {
        printf("FAIL: msgrec rank %d: no index or data file in %s (recorder not preloaded?)\n",
               rank, dir);
        return 1;
    }
    int *kept = calloc(used + 1, sizeof *kept);
    const summary_t want = select_kept(kept);

    int failures = 0;
    char line[512];
    long lineno = 0, offset = 0;
    size_t next = 0; /* next declaration to look at */
    unsigned long long prev_call = 0;
    int prev_expected_call = -1, have_end = 0;
    while (fgets(line, sizeof line, idx)) {
        ++lineno;
        if (lineno == 1) {
            if (strncmp(line, "# msgrec index 1:", 17) != 0)
                failures += fail(rank, "first line is not the msgrec index 1 header", lineno);
            continue;
        }
        if (line[0] == '#') {
            summary_t got = {0};
            unsigned long long calls;
            if (sscanf(line,
                       "# end calls=%llu recorded=%ld recorded_bytes=%ld small=%ld small_bytes=%ld "
                       "over_limit=%ld over_limit_bytes=%ld unsampled=%ld",
                       &calls, &got.recorded, &got.recorded_bytes, &got.small, &got.small_bytes,
                       &got.over_limit, &got.over_limit_bytes, &got.unsampled) != 8)
                failures += fail(rank, "malformed summary line", lineno);
            else if (memcmp(&got, &want, sizeof got) != 0) {
                printf("FAIL: msgrec rank %d: summary %s  expected recorded=%ld "
                       "recorded_bytes=%ld small=%ld small_bytes=%ld over_limit=%ld "
                       "over_limit_bytes=%ld unsampled=%ld\n",
                       rank, line, want.recorded, want.recorded_bytes, want.small, want.small_bytes,
                       want.over_limit, want.over_limit_bytes, want.unsampled);
                ++failures;
            }
            have_end = 1;
            continue;
        }
        while (next < used && !kept[next])
            ++next;
        if (next == used) {
            failures += fail(rank, "more records than payloads kept", lineno);
            break;
        }
        const expected_t *e = &list[next++];
        unsigned long long call, bytes, off;
        char op[32], elem[16];
        int peer, tag;
        if (sscanf(line, "%llu %31s %15s %llu %llu %d %d", &call, op, elem, &bytes, &off, &peer,
                   &tag) != 7) {
            failures += fail(rank, "malformed record", lineno);
            continue;
        }
        char what[256];
        snprintf(what, sizeof what,
                 "got %s %s %llu B peer %d tag %d, expected %s %s %ld B peer "
                 "%d tag %d",
                 op, elem, bytes, peer, tag, e->op, e->elem, e->bytes, e->peer, e->tag);
        if (strcmp(op, e->op) || strcmp(elem, e->elem) || (long)bytes != e->bytes ||
            peer != e->peer || tag != e->tag)
            failures += fail(rank, what, lineno);
        if ((long)off != offset)
            failures += fail(rank, "offset is not the end of the previous payload", lineno);
        /* one call number per MPI call: shared within it, growing between calls */
        if (e->call == prev_expected_call ? call != prev_call : call <= prev_call)
            failures += fail(rank, "call number does not match the grouping of calls", lineno);
        prev_call = call;
        prev_expected_call = e->call;
        unsigned char *got = malloc(bytes ? bytes : 1);
        if (fseek(dat, (long)off, SEEK_SET) != 0 || fread(got, 1, bytes, dat) != bytes)
            failures += fail(rank, "data file shorter than the index says", lineno);
        else if ((long)bytes == e->bytes && memcmp(got, e->data, bytes) != 0)
            failures += fail(rank, "recorded bytes differ from the bytes sent", lineno);
        free(got);
        offset += (long)bytes;
    }
    while (next < used && !kept[next])
        ++next;
    if (next != used)
        failures += fail(rank, "index ends before every kept payload was recorded", lineno);
    if (!have_end)
        failures += fail(rank, "no summary line", lineno);
    fseek(dat, 0, SEEK_END);
    if (ftell(dat) != offset)
        failures += fail(rank, "data file longer than the recorded payloads", lineno);
    fclose(idx);
    fclose(dat);
    free(kept);
    return failures;
}
