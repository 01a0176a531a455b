/*
 * The message recorder (perftest/msgrec), run under LD_PRELOAD: every kind of send it wraps,
 * with double, float, int32, int64, derived (strided doubles, a mixed struct) and small payloads,
 * sends to MPI_PROC_NULL, persistent sends started twice with new contents, in-place
 * collectives. Each payload is declared as it is sent (msgrec_expect.h); after MPI_Finalize each
 * rank checks its recorded files against the declarations, byte for byte. Needs >= 3 ranks.
 * Prints "PASS: msgrec" on success.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgrec_expect.h"

#define N 1024

static int rank, size, right, left;

static void fill_doubles(double *v, int n, int salt)
{
    for (int i = 0; i < n; ++i)
        v[i] = 1000.0 * rank + 0.25 * i + salt;
}

static void fill_floats(float *v, int n, int salt)
{
    for (int i = 0; i < n; ++i)
        v[i] = (float)(rank * 100 + i) * 0.5f + (float)salt;
}

static void point_to_point(void)
{
    static double d[2 * N], r[2 * N];
    static float f[2 * N], fr[2 * N];
    static int32_t i32[1500], i32r[1500];
    static int64_t i64[600], i64r[600];
    MPI_Request req;

    fill_doubles(d, N, 1);
    expect_call();
    expect_msg("send", "f64", d, N * 8, right, 7);
    MPI_Irecv(r, N, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &req);
    MPI_Send(d, N, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    fill_floats(f, 2 * N, 2);
    expect_call();
    expect_msg("isend", "f32", f, 2 * N * 4, right, 8);
    MPI_Isend(f, 2 * N, MPI_FLOAT, right, 8, MPI_COMM_WORLD, &req);
    MPI_Recv(fr, 2 * N, MPI_FLOAT, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    for (int i = 0; i < 1500; ++i)
        i32[i] = rank * 7 + i * 3;
    expect_call();
    expect_msg("issend", "i32", i32, sizeof i32, right, 9);
    MPI_Issend(i32, 1500, MPI_INT, right, 9, MPI_COMM_WORLD, &req);
    MPI_Recv(i32r, 1500, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    for (int i = 0; i < 600; ++i)
        i64[i] = ((int64_t)rank << 40) + i;
    expect_call();
    expect_msg("send", "i64", i64, sizeof i64, right, 10);
    MPI_Irecv(i64r, 600, MPI_INT64_T, left, 10, MPI_COMM_WORLD, &req);
    MPI_Send(i64, 600, MPI_INT64_T, right, 10, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* below MSGREC_MIN_BYTES: counted, not recorded */
    expect_call();
    expect_msg("send", "f64", d, 100 * 8, right, 11);
    MPI_Irecv(r, 100, MPI_DOUBLE, left, 11, MPI_COMM_WORLD, &req);
    MPI_Send(d, 100, MPI_DOUBLE, right, 11, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* no message at all */
    MPI_Send(d, N, MPI_DOUBLE, MPI_PROC_NULL, 12, MPI_COMM_WORLD);

    expect_call();
    expect_msg("sendrecv", "f64", d, N * 8, right, 13);
    MPI_Sendrecv(d, N, MPI_DOUBLE, right, 13, r, N, MPI_DOUBLE, left, 13, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* Derived datatypes are recorded as MPI packs them. */
static void derived(void)
{
    static double d[2 * N], packed[N], r[N];
    fill_doubles(d, 2 * N, 3);
    for (int i = 0; i < N; ++i)
        packed[i] = d[2 * i];
    MPI_Request req;
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    expect_call();
    expect_msg("send", "f64", packed, sizeof packed, right, 20);
    MPI_Irecv(r, N, MPI_DOUBLE, left, 20, MPI_COMM_WORLD, &req);
    MPI_Send(d, 1, every_other, right, 20, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Type_free(&every_other);

    /* a struct of an int and a double: packed as 12 bytes, element type "bytes" */
    struct pair {
        int32_t i;
        double x;
    } pairs[512], back[512];
    unsigned char want[512 * 12];
    for (int k = 0; k < 512; ++k) {
        memset(&pairs[k], 0, sizeof pairs[k]);
        pairs[k].i = rank * 1000 + k;
        pairs[k].x = k * 0.125;
        memcpy(want + 12 * k, &pairs[k].i, 4);
        memcpy(want + 12 * k + 4, &pairs[k].x, 8);
    }
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {offsetof(struct pair, i), offsetof(struct pair, x)};
    MPI_Datatype types[2] = {MPI_INT32_T, MPI_DOUBLE}, raw, pair_type;
    MPI_Type_create_struct(2, lens, displs, types, &raw);
    MPI_Type_create_resized(raw, 0, sizeof(struct pair), &pair_type);
    MPI_Type_commit(&pair_type);
    expect_call();
    expect_msg("send", "bytes", want, sizeof want, right, 21);
    MPI_Irecv(back, 512, pair_type, left, 21, MPI_COMM_WORLD, &req);
    MPI_Send(pairs, 512, pair_type, right, 21, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Type_free(&pair_type);
    MPI_Type_free(&raw);
}

/* A persistent send is recorded at every start, with the buffer's contents at that time. */
static void persistent(void)
{
    static double d[N], r[N];
    MPI_Request send, recv;
    MPI_Send_init(d, N, MPI_DOUBLE, right, 30, MPI_COMM_WORLD, &send);
    MPI_Recv_init(r, N, MPI_DOUBLE, left, 30, MPI_COMM_WORLD, &recv);
    for (int round = 0; round < 2; ++round) {
        fill_doubles(d, N, 10 + round);
        expect_call();
        expect_msg("send_init", "f64", d, sizeof d, right, 30);
        MPI_Start(&recv);
        MPI_Start(&send);
        MPI_Wait(&send, MPI_STATUS_IGNORE);
        MPI_Wait(&recv, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
}

static void collectives(void)
{
    static double d[N], all[16 * N];
    static float f[N], fr[N];
    fill_doubles(d, N, 40);

    expect_call();
    if (rank == 0)
        expect_msg("bcast", "f64", d, sizeof d, -1, -1);
    MPI_Bcast(d, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    fill_doubles(d, N, 41);
    expect_call();
    expect_msg("allreduce", "f64", d, sizeof d, -1, -1); /* in place: recvbuf before the call */
    MPI_Allreduce(MPI_IN_PLACE, d, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    /* one message per other rank, each of its own size */
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    int *rcounts = malloc(sizeof(int) * size), *rdispls = malloc(sizeof(int) * size);
    int total = 0, rtotal = 0;
    for (int j = 0; j < size; ++j) {
        counts[j] = 512 + 128 * j + 64 * rank;
        displs[j] = total;
        total += counts[j];
        rcounts[j] = 512 + 128 * rank + 64 * j;
        rdispls[j] = rtotal;
        rtotal += rcounts[j];
    }
    double *sendv = malloc(sizeof(double) * total), *recvv = malloc(sizeof(double) * rtotal);
    for (int i = 0; i < total; ++i)
        sendv[i] = rank + 0.001 * i;
    expect_call();
    for (int j = 0; j < size; ++j)
        if (j != rank)
            expect_msg("alltoallv", "f64", sendv + displs[j], counts[j] * 8L, j, -1);
    MPI_Alltoallv(sendv, counts, displs, MPI_DOUBLE, recvv, rcounts, rdispls, MPI_DOUBLE,
                  MPI_COMM_WORLD);

    /* blocks of 2400 bytes: every one is small */
    float *blocks = malloc(sizeof(float) * 600 * size),
          *rblocks = malloc(sizeof(float) * 600 * size);
    for (int i = 0; i < 600 * size; ++i)
        blocks[i] = (float)i;
    expect_call();
    for (int j = 0; j < size; ++j)
        if (j != rank)
            expect_msg("alltoall", "f32", blocks + 600 * j, 2400, j, -1);
    MPI_Alltoall(blocks, 600, MPI_FLOAT, rblocks, 600, MPI_FLOAT, MPI_COMM_WORLD);

    fill_doubles(d, N, 42);
    expect_call();
    if (rank != 1)
        expect_msg("gather", "f64", d, sizeof d, 1, -1);
    MPI_Gather(d, N, MPI_DOUBLE, all, N, MPI_DOUBLE, 1, MPI_COMM_WORLD);

    int32_t *scat = malloc(sizeof(int32_t) * 1200 * size), part[1200];
    for (int i = 0; i < 1200 * size; ++i)
        scat[i] = rank * 100000 + i;
    expect_call();
    if (rank == 2)
        for (int j = 0; j < size; ++j)
            if (j != 2)
                expect_msg("scatter", "i32", scat + 1200 * j, 4800, j, -1);
    MPI_Scatter(scat, 1200, MPI_INT32_T, part, 1200, MPI_INT32_T, 2, MPI_COMM_WORLD);

    int64_t mine[600], *gathered = malloc(sizeof(int64_t) * 600 * size);
    for (int i = 0; i < 600; ++i)
        mine[i] = (int64_t)rank * i;
    expect_call();
    expect_msg("allgather", "i64", mine, sizeof mine, -1, -1);
    MPI_Allgather(mine, 600, MPI_LONG_LONG, gathered, 600, MPI_LONG_LONG, MPI_COMM_WORLD);

    fill_floats(f, N, 43);
    expect_call();
    if (rank != 0)
        expect_msg("reduce", "f32", f, sizeof f, 0, -1);
    MPI_Reduce(f, fr, N, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);

    free(counts);
    free(displs);
    free(rcounts);
    free(rdispls);
    free(sendv);
    free(recvv);
    free(blocks);
    free(rblocks);
    free(scat);
    free(gathered);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        if (rank == 0)
            printf("FAIL: msgrec needs at least 3 ranks\n");
        MPI_Finalize();
        return 1;
    }
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    point_to_point();
    derived();
    persistent();
    collectives();
    MPI_Finalize(); /* the recorder closes its files here */

    int failures = expect_check(rank);
    if (failures == 0)
        printf("PASS: msgrec rank %d\n", rank);
    return failures ? 1 : 0;
}
