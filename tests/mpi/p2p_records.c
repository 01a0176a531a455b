/*
 * Records that are neither float, double nor integer data to MPI: rank 0 sends rank 1 (and back)
 * particle records of smooth doubles and integer ids, as MPI_BYTE (as CoMD sends them), as a
 * struct datatype mixing the two, as MPI_PACKED (MPI_Pack of the records), random bytes, and
 * the ids and positions alone through a struct type with gaps (packed before it is sent).
 * Every message must arrive bit for bit, whatever was compressed; the harness reads from
 * pml_zip_stats that the three record messages were compressed and the random bytes were not.
 */
#include <stddef.h>

#include "p2p_common.h"

#define RECORDS 2048 /* 2048 x 56 bytes = 112 KiB per message */

typedef struct {
    int gid, species;
    double r[3], p[3];
} record_t;

static void fill_records(record_t *rec, int n)
{
    double *smooth = malloc((size_t)n * 6 * sizeof(double));
    pt_fill_f64(smooth, (size_t)n * 6, 0); /* even seed: smooth */
    memset(rec, 0, (size_t)n * sizeof(*rec));
    for (int i = 0; i < n; ++i) {
        rec[i].gid = 1000 + i;
        rec[i].species = i % 3;
        for (int k = 0; k < 3; ++k) {
            rec[i].r[k] = smooth[6 * i + k];
            rec[i].p[k] = smooth[6 * i + 3 + k] * 1e-3;
        }
    }
    free(smooth);
}

/* The first `ints` ints and `doubles` doubles of each record (2 and 6: all of it; 1 and 3: the
 * id and the position, a type with gaps that is packed before it is sent). */
static MPI_Datatype record_fields(int ints, int doubles)
{
    const int lengths[2] = {ints, doubles};
    const MPI_Aint displs[2] = {offsetof(record_t, gid), offsetof(record_t, r)};
    const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype t, resized;
    MPI_Type_create_struct(2, lengths, displs, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(record_t), &resized);
    MPI_Type_free(&t);
    MPI_Type_commit(&resized);
    return resized;
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    const size_t bytes = RECORDS * sizeof(record_t);
    record_t *ref = malloc(bytes), *got = malloc(bytes);
    unsigned char *noise = malloc(bytes), *noise_got = malloc(bytes);
    fill_records(ref, RECORDS);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < bytes; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        noise[i] = (unsigned char)(x >> 32);
    }
    MPI_Datatype rtype = record_fields(2, 6), ptype = record_fields(1, 3);
    int packed_size = 0;
    MPI_Pack_size(RECORDS, rtype, MPI_COMM_WORLD, &packed_size);
    char *packed = malloc((size_t)packed_size), *packed_got = malloc((size_t)packed_size);
    int packed_len = 0;
    MPI_Pack(ref, RECORDS, rtype, packed, packed_size, &packed_len, MPI_COMM_WORLD);

    if (pt_rank < 2) {
        const int peer = 1 - pt_rank;
        /* Rank 0 sends first, rank 1 echoes: both directions see every shape. */
        for (int turn = 0; turn < 2; ++turn) {
            const int sending = (turn == 0) == (pt_rank == 0);
            if (sending) {
                pt_call(MPI_Send(ref, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD), "send bytes");
                pt_call(MPI_Send(ref, RECORDS, rtype, peer, 2, MPI_COMM_WORLD), "send struct");
                pt_call(MPI_Send(packed, packed_len, MPI_PACKED, peer, 3, MPI_COMM_WORLD),
                        "send packed");
                pt_call(MPI_Send(noise, (int)bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD),
                        "send noise");
                pt_call(MPI_Send(ref, RECORDS, ptype, peer, 5, MPI_COMM_WORLD), "send positions");
            } else {
                MPI_Status st;
                int count = -1;
                memset(got, 0xa5, bytes);
                pt_call(MPI_Recv(got, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st),
                        "recv bytes");
                MPI_Get_count(&st, MPI_BYTE, &count);
                pt_check(count == (int)bytes && 0 == memcmp(got, ref, bytes),
                         "records as MPI_BYTE");
                /* Received with the struct type: only its members are written, so compare them. */
                memset(got, 0xa5, bytes);
                pt_call(MPI_Recv(got, RECORDS, rtype, peer, 2, MPI_COMM_WORLD, &st), "recv struct");
                MPI_Get_count(&st, rtype, &count);
                int same = count == RECORDS;
                for (int i = 0; i < RECORDS && same; ++i)
                    same = got[i].gid == ref[i].gid && got[i].species == ref[i].species &&
                           0 == memcmp(got[i].r, ref[i].r, sizeof ref[i].r) &&
                           0 == memcmp(got[i].p, ref[i].p, sizeof ref[i].p);
                pt_check(same, "records as a struct of ints and doubles");
                memset(packed_got, 0xa5, (size_t)packed_size);
                pt_call(MPI_Recv(packed_got, packed_size, MPI_PACKED, peer, 3, MPI_COMM_WORLD, &st),
                        "recv packed");
                MPI_Get_count(&st, MPI_PACKED, &count);
                pt_check(count == packed_len && 0 == memcmp(packed_got, packed, (size_t)packed_len),
                         "records as MPI_PACKED");
                memset(noise_got, 0, bytes);
                pt_call(MPI_Recv(noise_got, (int)bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &st),
                        "recv noise");
                pt_check(0 == memcmp(noise_got, noise, bytes), "random bytes");
                /* The gaps of the receive type keep what they held. */
                memset(got, 0xa5, bytes);
                pt_call(MPI_Recv(got, RECORDS, ptype, peer, 5, MPI_COMM_WORLD, &st),
                        "recv positions");
                MPI_Get_count(&st, ptype, &count);
                record_t untouched;
                memset(&untouched, 0xa5, sizeof untouched);
                same = count == RECORDS;
                for (int i = 0; i < RECORDS && same; ++i)
                    same = got[i].gid == ref[i].gid &&
                           0 == memcmp(got[i].r, ref[i].r, sizeof ref[i].r) &&
                           got[i].species == untouched.species &&
                           0 == memcmp(got[i].p, untouched.p, sizeof untouched.p);
                pt_check(same, "positions through a type with gaps, gaps untouched");
            }
        }
    }
    MPI_Type_free(&rtype);
    MPI_Type_free(&ptype);
    free(ref);
    free(got);
    free(noise);
    free(noise_got);
    free(packed);
    free(packed_got);
    return pt_finish("p2p_records");
}
