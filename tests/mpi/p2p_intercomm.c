/*
 * Point-to-point across inter-communicators through pml/zip: one made with
 * MPI_Intercomm_create (even world ranks against odd ones), the intra-communicator
 * MPI_Intercomm_merge makes of it, and, with the argument "spawn", the parent-child
 * communicator of MPI_Comm_spawn (two children running this program). On each: every size from
 * empty to 2.4 MB, smooth and random doubles, received through MPI_Probe with MPI_ANY_SOURCE
 * (the count checked), MPI_Mprobe / MPI_Mrecv and pre-posted MPI_Irecv, and answered; every
 * message compared bit for bit. A rank in an inter-communicator addresses the remote group, so
 * zip's peer lookups, locality and envelopes must follow the remote group's ranks.
 */
#include "p2p_common.h"

static const size_t sizes[] = {0, 3, 1000, 8191, 70000, 300000};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Message seeds name the sender by its side and its rank in its group. */
static uint64_t seed_of(int side, int from, int to, int tag)
{
    return pt_seed(side * 1000 + from, to, tag, tag & 1);
}

static void expect(const double *got, size_t n, uint64_t seed, double *ref, const char *what)
{
    pt_fill_f64(ref, n, seed);
    pt_check(pt_same(got, ref, n * sizeof(double)), what);
}

static void check_count(MPI_Status *st, size_t n, const char *what)
{
    int c = -1;
    MPI_Get_count(st, MPI_DOUBLE, &c);
    pt_check(c == (int)n, what);
}

/*
 * Side 0 (the initiator) sends every message to peer rank % remote size and receives the
 * answers; side 1 takes each message from whoever sent it, three ways in turn, and answers
 * it. Tags: size index * 4 + way, so that the two data sets alternate.
 */
static void exchange(MPI_Comm inter, int side)
{
    int rank, rsize, lsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    const size_t maxn = sizes[NSIZES - 1];
    double *out = malloc(maxn * sizeof(double) + 1), *in = malloc(maxn * sizeof(double) + 1);
    double *ref = malloc(maxn * sizeof(double) + 1);

    for (size_t s = 0; s < NSIZES; ++s) {
        const size_t n = sizes[s];
        for (int way = 0; way < 3; ++way) {
            const int tag = (int)s * 4 + way;
            if (0 == side) {
                const int peer = rank % rsize;
                MPI_Request r;
                pt_fill_f64(out, n, seed_of(0, rank, peer, tag));
                pt_call(MPI_Isend(out, (int)n, MPI_DOUBLE, peer, tag, inter, &r), "isend");
                MPI_Status st;
                pt_call(MPI_Recv(in, (int)n, MPI_DOUBLE, peer, tag, inter, &st), "recv answer");
                pt_call(MPI_Wait(&r, MPI_STATUS_IGNORE), "wait isend");
                pt_check(st.MPI_SOURCE == peer, "answer's source");
                check_count(&st, n, "answer's count");
                expect(in, n, seed_of(1, peer, rank, tag), ref, "answer's data");
                continue;
            }
            /* The remote ranks that send to this one: r with r % lsize == rank. */
            for (int from = rank; from < rsize; from += lsize) {
                MPI_Status st;
                if (0 == way) {
                    pt_call(MPI_Probe(MPI_ANY_SOURCE, tag, inter, &st), "probe");
                    check_count(&st, n, "probe's count");
                    pt_call(MPI_Recv(in, (int)n, MPI_DOUBLE, st.MPI_SOURCE, tag, inter, &st),
                            "recv after probe");
                } else if (1 == way) {
                    MPI_Message m;
                    pt_call(MPI_Mprobe(MPI_ANY_SOURCE, tag, inter, &m, &st), "mprobe");
                    check_count(&st, n, "mprobe's count");
                    pt_call(MPI_Mrecv(in, (int)n, MPI_DOUBLE, &m, &st), "mrecv");
                } else {
                    MPI_Request r;
                    pt_call(MPI_Irecv(in, (int)n, MPI_DOUBLE, MPI_ANY_SOURCE, tag, inter, &r),
                            "irecv");
                    pt_call(MPI_Wait(&r, &st), "wait irecv");
                }
                check_count(&st, n, "received count");
                const int src = st.MPI_SOURCE;
                pt_check(src >= 0 && src < rsize && src % lsize == rank, "source in range");
                expect(in, n, seed_of(0, src, rank, tag), ref, "received data");
                pt_fill_f64(out, n, seed_of(1, rank, src, tag));
                pt_call(MPI_Send(out, (int)n, MPI_DOUBLE, src, tag, inter), "send answer");
            }
        }
    }
    free(out);
    free(in);
    free(ref);
}

/* A ring over the merged communicator: each rank sends to the next and receives from the
 * previous, large smooth and random messages. */
static void ring(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    const size_t n = 300000;
    double *out = malloc(n * sizeof(double)), *in = malloc(n * sizeof(double));
    double *ref = malloc(n * sizeof(double));
    for (int tag = 0; tag < 2; ++tag) {
        pt_fill_f64(out, n, pt_seed(rank, next, tag, tag));
        pt_call(MPI_Sendrecv(out, (int)n, MPI_DOUBLE, next, tag, in, (int)n, MPI_DOUBLE, prev, tag,
                             comm, MPI_STATUS_IGNORE),
                "sendrecv on the merged communicator");
        expect(in, n, pt_seed(prev, rank, tag, tag), ref, "merged ring data");
    }
    free(out);
    free(in);
    free(ref);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (MPI_COMM_NULL != parent) {
        /* A spawned child: side 1 of the parent's communicator; reports its failed checks to
         * the parents' rank 0, which counts them. */
        MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
        exchange(parent, 1);
        if (0 == pt_rank) {
            int total = 0;
            MPI_Reduce(&pt_failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Send(&total, 1, MPI_INT, 0, 999, parent);
        } else {
            MPI_Reduce(&pt_failures, NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        }
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    if (pt_size < 2) {
        if (0 == pt_rank)
            printf("FAIL: p2p_intercomm needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }

    const int side = pt_rank % 2;
    MPI_Comm local, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, side, pt_rank, &local);
    /* The remote leader: world rank 1 for the even group, world rank 0 for the odd one. */
    pt_call(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - side, 77, &inter),
            "intercomm_create");
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    exchange(inter, side);
    pt_call(MPI_Intercomm_merge(inter, side, &merged), "intercomm_merge");
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    ring(merged);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);

    if (argc > 1 && 0 == strcmp(argv[1], "spawn")) {
        MPI_Comm child;
        int errs[2];
        pt_call(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &child,
                               errs),
                "comm_spawn");
        MPI_Comm_set_errhandler(child, MPI_ERRORS_RETURN);
        exchange(child, 0);
        if (0 == pt_rank) {
            int theirs = -1;
            pt_call(MPI_Recv(&theirs, 1, MPI_INT, 0, 999, child, MPI_STATUS_IGNORE),
                    "children's result");
            pt_check(0 == theirs, "the spawned children's checks");
        }
        MPI_Comm_disconnect(&child);
    }
    return pt_finish(argc > 1 ? "p2p_intercomm (spawn)" : "p2p_intercomm");
}
