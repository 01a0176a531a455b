/*
 * Per-communicator switch: with pml_zip_enable=0, MPI_Comm_dup_with_info(zip_p2p=true) and
 * MPI_Comm_set_info(zip_p2p=true) turn compression on for one communicator only, and
 * zip_p2p=false turns it off on one communicator when the job-wide switch is on. Data must be
 * right on all of them; whether the zip path ran is checked by the harness from the
 * pml_zip_stats counters. With P2P_INFO_POLICY_KEY set, the first communicator also carries
 * zip_policy=never, which must override pml_zip_policy there.
 */
#include "p2p_common.h"

#define N 200000

static void exchange(MPI_Comm comm, int tag, const char *what)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    double *s = malloc(N * sizeof(double)), *r = malloc(N * sizeof(double)),
           *ref = malloc(N * sizeof(double));
    pt_fill_f64(s, N, pt_seed(rank, peer, tag, 0));
    pt_fill_f64(ref, N, pt_seed(peer, rank, tag, 0));
    MPI_Status st;
    int c = -1;
    pt_call(MPI_Sendrecv(s, N, MPI_DOUBLE, peer, tag, r, N, MPI_DOUBLE, peer, tag, comm, &st),
            what);
    MPI_Get_count(&st, MPI_DOUBLE, &c);
    pt_check(c == N && pt_same(r, ref, N * sizeof(double)), what);
    free(s);
    free(r);
    free(ref);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    MPI_Info on, off;
    MPI_Info_create(&on);
    MPI_Info_set(on, "zip_p2p", "true");
    if (getenv("P2P_INFO_POLICY_KEY"))
        MPI_Info_set(on, "zip_policy", "never");
    MPI_Info_create(&off);
    MPI_Info_set(off, "zip_p2p", "false");

    MPI_Comm with_info, set_later, turned_off, plain;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, on, &with_info);
    MPI_Comm_dup(MPI_COMM_WORLD, &set_later);
    if (getenv("P2P_INFO_POLICY_KEY"))
        MPI_Info_delete(on, "zip_policy"); /* only the first one gets it */
    MPI_Comm_set_info(set_later, on);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, off, &turned_off);
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);

    exchange(with_info, 1, "dup_with_info zip_p2p=true");
    exchange(set_later, 2, "set_info zip_p2p=true");
    exchange(turned_off, 3, "zip_p2p=false");
    exchange(plain, 4, "no key");

    /* The key reads back as set. */
    MPI_Info got;
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_Comm_get_info(set_later, &got);
    MPI_Info_get(got, "zip_p2p", MPI_MAX_INFO_VAL, value, &flag);
    MPI_Info_free(&got);
    if (getenv("P2P_INFO_EXPECT_KEY"))
        pt_check(flag && 0 == strcmp(value, "true"), "get_info returns zip_p2p");

    MPI_Comm_free(&with_info);
    MPI_Comm_free(&set_later);
    MPI_Comm_free(&turned_off);
    MPI_Comm_free(&plain);
    MPI_Info_free(&on);
    MPI_Info_free(&off);
    return pt_finish("p2p_info");
}
