/*
 * Probe family through pml/zip: MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv, with specific and wildcard source/tag. The count a probe reports must be the
 * application's (what the receive will deliver), for compressed, raw-behind-a-header and plain
 * (int) messages alike; receiving with exactly that count must succeed. Every rank sends to
 * rank 0 (the prober), which probes with MPI_ANY_SOURCE.
 */
#include "p2p_common.h"

#define KINDS 6

/* Message k from rank src: doubles or ints, small or large, smooth or random. */
static int msg_n(int k)
{
    static const int n[KINDS] = {70000, 5, 120000, 3000, 80000, 0};
    return n[k];
}
static int msg_is_int(int k)
{
    return 3 == k;
}

static void fill(void *buf, int src, int k)
{
    int n = msg_n(k);
    if (msg_is_int(k)) {
        for (int i = 0; i < n; ++i)
            ((int *)buf)[i] = src * 100000 + i * 3 + k;
    } else {
        pt_fill_f64(buf, n, pt_seed(src, 0, k, k & 1));
    }
}

static void check_msg(const void *buf, const MPI_Status *st, int k, const char *what)
{
    int n = msg_n(k), c = -1;
    void *ref = malloc((n + 1) * sizeof(double));
    fill(ref, st->MPI_SOURCE, k);
    MPI_Get_count(st, msg_is_int(k) ? MPI_INT : MPI_DOUBLE, &c);
    pt_check(c == n, what);
    pt_check(pt_same(buf, ref, n * (msg_is_int(k) ? sizeof(int) : sizeof(double))), what);
    free(ref);
}

static void send_all(int round)
{
    (void)round;
    void *buf = malloc(130000 * sizeof(double));
    for (int k = 0; k < KINDS; ++k) {
        fill(buf, pt_rank, k);
        pt_call(MPI_Send(buf, msg_n(k), msg_is_int(k) ? MPI_INT : MPI_DOUBLE, 0, k, MPI_COMM_WORLD),
                "send");
    }
    free(buf);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    const int senders = pt_size - 1;
    void *buf = malloc(130000 * sizeof(double));

    for (int variant = 0; variant < 4; ++variant) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (0 != pt_rank) {
            send_all(variant);
            continue;
        }
        for (int got = 0; got < senders * KINDS; ++got) {
            MPI_Status ps, rs;
            MPI_Message msg;
            MPI_Request req;
            int flag = 0, count = -1;
            /* Tags arrive in order per sender; probe any source and any tag. */
            switch (variant) {
            case 0: /* probe, then a receive of exactly the probed count */
                pt_call(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ps), "probe");
                break;
            case 1: /* iprobe loop */
                while (!flag)
                    pt_call(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &ps),
                            "iprobe");
                break;
            case 2:
                pt_call(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &ps),
                        "mprobe");
                break;
            default:
                while (!flag)
                    pt_call(
                        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &ps),
                        "improbe");
                break;
            }
            int k = ps.MPI_TAG;
            MPI_Datatype t = msg_is_int(k) ? MPI_INT : MPI_DOUBLE;
            MPI_Get_count(&ps, t, &count);
            pt_check(count == msg_n(k), "probed count is the application's count");
            memset(buf, 0, 130000 * sizeof(double));
            if (variant < 2) {
                /* A second probe of the same message says the same. */
                MPI_Status again;
                MPI_Probe(ps.MPI_SOURCE, k, MPI_COMM_WORLD, &again);
                int c2 = -1;
                MPI_Get_count(&again, t, &c2);
                pt_check(c2 == count && again.MPI_SOURCE == ps.MPI_SOURCE, "probe is repeatable");
                pt_call(MPI_Recv(buf, count, t, ps.MPI_SOURCE, k, MPI_COMM_WORLD, &rs), "recv");
            } else if (2 == variant) {
                pt_call(MPI_Mrecv(buf, count, t, &msg, &rs), "mrecv");
                pt_check(MPI_MESSAGE_NULL == msg, "mrecv consumes the message");
            } else {
                pt_call(MPI_Imrecv(buf, count, t, &msg, &req), "imrecv");
                pt_call(MPI_Wait(&req, &rs), "wait imrecv");
            }
            pt_check(rs.MPI_SOURCE == ps.MPI_SOURCE && rs.MPI_TAG == k, "status after probe");
            check_msg(buf, &rs, k, "message received after probe");
        }
    }

    /* Probe one sender's message, then receive it with MPI_ANY_SOURCE and a larger buffer. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 != pt_rank) {
        send_all(9);
    } else {
        for (int got = 0; got < senders * KINDS; ++got) {
            MPI_Status ps, rs;
            int count = -1;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ps);
            int k = ps.MPI_TAG;
            MPI_Datatype t = msg_is_int(k) ? MPI_INT : MPI_DOUBLE;
            MPI_Get_elements(&ps, t, &count);
            pt_check(count == msg_n(k), "MPI_Get_elements on a probe status");
            pt_call(MPI_Recv(buf, 130000, t, MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &rs), "recv any");
            check_msg(buf, &rs, k, "ANY_SOURCE receive after probe");
        }
    }
    free(buf);
    return pt_finish("p2p_probe");
}
