/*
 * A job where one process has a GPU driver runtime loaded (the runner preloads a stand-in
 * library named libcuda.so.1 into the last rank): every message of a communicator with that
 * process in it goes to the wrapped PML untouched, and a communicator without it still
 * compresses. 3 ranks or more; the last one is the GPU process.
 *
 * On MPI_COMM_WORLD (with the GPU process): smooth doubles over the threshold from rank 0 to 1,
 * from 1 to the GPU rank and from it to 0, a message of exactly 14 bytes (an envelope's size) to
 * and from the GPU rank, a synchronous send, and MPI_Mprobe / MPI_Mrecv at the GPU rank. On a
 * communicator of ranks 0 and 1 alone: `compressed` smooth messages from 0 to 1. Every message
 * is checked byte for byte; the runner reads pml_zip_stats: rank 0 sent exactly `compressed`
 * zip messages, every other rank none.
 */
#include "p2p_common.h"

enum { n_doubles = 65536, compressed = 3 };

static void send_smooth(MPI_Comm comm, int dst, int tag, uint64_t seed, double *buf)
{
    pt_fill_f64(buf, n_doubles, seed);
    pt_call(MPI_Send(buf, n_doubles, MPI_DOUBLE, dst, tag, comm), "MPI_Send");
}

static void recv_smooth(MPI_Comm comm, int src, int tag, uint64_t seed, double *buf, double *ref,
                        const char *what)
{
    pt_fill_f64(ref, n_doubles, seed);
    memset(buf, 0, n_doubles * sizeof(double));
    pt_call(MPI_Recv(buf, n_doubles, MPI_DOUBLE, src, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    pt_check(pt_same(buf, ref, n_doubles * sizeof(double)), what);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    if (pt_size < 3) {
        if (0 == pt_rank)
            printf("FAIL: p2p_gpu needs 3 ranks or more\n");
        MPI_Finalize();
        return 1;
    }
    const int gpu = pt_size - 1;
    double *buf = malloc(n_doubles * sizeof(double)), *ref = malloc(n_doubles * sizeof(double));

    /* MPI_COMM_WORLD has the GPU process: untouched, and still right. */
    if (0 == pt_rank) {
        send_smooth(MPI_COMM_WORLD, 1, 1, 100, buf);
        recv_smooth(MPI_COMM_WORLD, gpu, 2, 102, buf, ref, "world: from the GPU rank");
    } else if (1 == pt_rank) {
        recv_smooth(MPI_COMM_WORLD, 0, 1, 100, buf, ref, "world: 0 to 1");
        send_smooth(MPI_COMM_WORLD, gpu, 3, 104, buf);
    } else if (gpu == pt_rank) {
        send_smooth(MPI_COMM_WORLD, 0, 2, 102, buf);
        MPI_Message msg;
        MPI_Status st;
        pt_call(MPI_Mprobe(1, 3, MPI_COMM_WORLD, &msg, &st), "MPI_Mprobe");
        int count = -1;
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        pt_check(n_doubles == count, "world: the GPU rank's probe counts the doubles");
        pt_fill_f64(ref, n_doubles, 104);
        pt_call(MPI_Mrecv(buf, n_doubles, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE), "MPI_Mrecv");
        pt_check(pt_same(buf, ref, n_doubles * sizeof(double)), "world: 1 to the GPU rank");
    }
    /* 14 bytes, the size of zip's envelope, each way between 0 and the GPU rank; synchronous. */
    const char fourteen[14] = "fourteen bytes";
    char got[14];
    if (0 == pt_rank) {
        pt_call(MPI_Ssend(fourteen, 14, MPI_CHAR, gpu, 4, MPI_COMM_WORLD), "MPI_Ssend");
        memset(got, 0, sizeof got);
        pt_call(MPI_Recv(got, 14, MPI_CHAR, gpu, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        pt_check(0 == memcmp(got, fourteen, 14), "world: 14 bytes from the GPU rank");
    } else if (gpu == pt_rank) {
        memset(got, 0, sizeof got);
        pt_call(MPI_Recv(got, 14, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        pt_check(0 == memcmp(got, fourteen, 14), "world: 14 bytes to the GPU rank");
        pt_call(MPI_Send(fourteen, 14, MPI_CHAR, 0, 5, MPI_COMM_WORLD), "MPI_Send");
    }

    /* Ranks 0 and 1 alone: zip's as ever. */
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, pt_rank < 2 ? 0 : MPI_UNDEFINED, pt_rank, &pair);
    if (MPI_COMM_NULL != pair) {
        for (int i = 0; i < compressed; ++i) {
            if (0 == pt_rank)
                send_smooth(pair, 1, 6, 200 + (uint64_t)i * 2, buf);
            else
                recv_smooth(pair, 0, 6, 200 + (uint64_t)i * 2, buf, ref, "pair: 0 to 1");
        }
        MPI_Comm_free(&pair);
    }
    free(buf);
    free(ref);
    return pt_finish("p2p_gpu");
}
