/*
 * Test programs made of named cases (p2p_semantics, p2p_osc): each case is run when its name is
 * on the command line (every case when none is), reports its own line
 * "PASS: <program> <case> (n failed checks)" / "FAIL: ..." on rank 0, and has a deadline: a case
 * that hangs prints "FAIL: <program> <case> (timeout ...)" and ends its process (mpirun then ends
 * the others), so a hang fails instead of blocking. PT_CASE_SECONDS overrides every deadline.
 */
#ifndef P2P_CASES_H
#define P2P_CASES_H

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "p2p_common.h"

struct pt_case {
    const char *name;
    void (*run)(void);
    unsigned seconds; /* deadline of the case */
};

static char pt_alarm_line[256];
static size_t pt_alarm_len = 0;

static inline void pt_on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(STDOUT_FILENO, pt_alarm_line, pt_alarm_len);
    (void)w;
    _exit(3);
}

/* From now on, a process still running after `seconds` prints
 * "FAIL: <program> <what> (timeout ...)" and exits; pt_deadline(..., 0) cancels. */
static inline void pt_deadline(const char *program, const char *what, unsigned seconds)
{
    const char *env = getenv("PT_CASE_SECONDS");
    if (seconds && env && atoi(env) > 0)
        seconds = (unsigned)atoi(env);
    int n = snprintf(pt_alarm_line, sizeof pt_alarm_line,
                     "FAIL: %s %s (timeout: rank %d still busy after %u s)\n", program, what,
                     pt_rank, seconds);
    pt_alarm_len = n < 0                              ? 0
                   : (size_t)n < sizeof pt_alarm_line ? (size_t)n
                                                      : sizeof pt_alarm_line - 1;
    signal(SIGALRM, pt_on_alarm);
    alarm(seconds);
}

/* A sleep outside MPI (no progress), whole even if a signal interrupts it. */
static inline void pt_sleep(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (0 != nanosleep(&ts, &ts)) {
    }
}

/* Polls `req` with MPI_Test for at most `seconds`; 1 if it completed (status in *st). */
static inline int pt_test_for(MPI_Request *req, double seconds, MPI_Status *st)
{
    double end = MPI_Wtime() + seconds;
    int flag = 0;
    do {
        pt_call(MPI_Test(req, &flag, st), "MPI_Test");
    } while (!flag && MPI_Wtime() < end);
    return flag;
}

/* Runs the selected cases in table order; 0 if every name on the command line is a case. */
static inline int pt_run_cases(const char *program, const struct pt_case *cases, size_t ncases,
                               int argc, char **argv)
{
    int unknown = 0;
    for (int a = 1; a < argc; ++a) {
        size_t i = 0;
        while (i < ncases && 0 != strcmp(argv[a], cases[i].name))
            ++i;
        if (i == ncases) {
            if (0 == pt_rank)
                printf("FAIL: %s: no case named %s\n", program, argv[a]);
            ++unknown;
        }
    }
    for (size_t i = 0; i < ncases; ++i) {
        int selected = argc < 2;
        for (int a = 1; a < argc; ++a)
            selected |= 0 == strcmp(argv[a], cases[i].name);
        if (!selected)
            continue;
        pt_deadline(program, cases[i].name, cases[i].seconds);
        MPI_Barrier(MPI_COMM_WORLD);
        int before = pt_failures;
        cases[i].run();
        int mine = pt_failures - before, total = 0;
        MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        pt_deadline(program, cases[i].name, 0);
        if (0 == pt_rank) {
            printf("%s: %s %s (%d failed checks)\n", total ? "FAIL" : "PASS", program,
                   cases[i].name, total);
            fflush(stdout);
        }
    }
    return unknown;
}

#endif
