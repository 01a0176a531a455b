/*
 * The data of the randomized soaks (test_soak.c, p2p_soak.c): datatypes with their layout as
 * the tests see it, element streams that any rank regenerates for any other, and buffers
 * filled with a sentinel so that bytes nobody may write can be checked.
 */
#ifndef SOAK_DATA_H
#define SOAK_DATA_H

#include "zt_common.h"

enum base { B_DOUBLE, B_FLOAT, B_INT, B_BYTE };

/* A datatype as the test sees it: items of up to three fields at byte offsets, one extent. */
typedef struct {
    const char *name;
    int fields;
    int offset[3];
    enum base base[3];
    int extent;
    int reducible; /* MPI_SUM, MPI_MAX and MPI_MIN apply: predefined numbers (MPI allows no more) */
    MPI_Datatype type;
} soak_type_t;

static soak_type_t types[] = {
    {"double", 1, {0}, {B_DOUBLE}, 8, 1, MPI_DATATYPE_NULL},
    {"float", 1, {0}, {B_FLOAT}, 4, 1, MPI_DATATYPE_NULL},
    {"int", 1, {0}, {B_INT}, 4, 1, MPI_DATATYPE_NULL},
    {"byte", 1, {0}, {B_BYTE}, 1, 0, MPI_DATATYPE_NULL},
    {"strided double", 1, {0}, {B_DOUBLE}, 16, 0, MPI_DATATYPE_NULL},
    {"3 doubles", 3, {0, 8, 16}, {B_DOUBLE, B_DOUBLE, B_DOUBLE}, 24, 0, MPI_DATATYPE_NULL},
    {"double+int", 2, {0, 8}, {B_DOUBLE, B_INT}, 16, 0, MPI_DATATYPE_NULL},
    {"hole+double", 1, {8}, {B_DOUBLE}, 16, 0, MPI_DATATYPE_NULL}, /* true lower bound 8 */
};
enum { TYPES = sizeof types / sizeof types[0] };

static void make_types(void)
{
    types[0].type = MPI_DOUBLE;
    types[1].type = MPI_FLOAT;
    types[2].type = MPI_INT;
    types[3].type = MPI_BYTE;
    types[4].type = zt_strided_double();
    MPI_Type_contiguous(3, MPI_DOUBLE, &types[5].type);
    MPI_Type_commit(&types[5].type);
    const int lengths[2] = {1, 1};
    const MPI_Aint displs[2] = {0, 8};
    const MPI_Datatype members[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Datatype packed;
    MPI_Type_create_struct(2, lengths, displs, members, &packed);
    MPI_Type_create_resized(packed, 0, 16, &types[6].type);
    MPI_Type_commit(&types[6].type);
    MPI_Type_free(&packed);
    const int one = 1;
    const MPI_Aint at8 = 8;
    const MPI_Datatype dbl = MPI_DOUBLE;
    MPI_Type_create_struct(1, &one, &at8, &dbl, &packed);
    MPI_Type_create_resized(packed, 0, 16, &types[7].type);
    MPI_Type_commit(&types[7].type);
    MPI_Type_free(&packed);
}

static void free_types(void)
{
    for (int t = 4; t < TYPES; ++t)
        MPI_Type_free(&types[t].type);
}

/* ---- the data ---- */

enum kind { K_SMOOTH, K_RANDOM, K_SPECIAL, K_INTEGRAL, K_INTEGRAL_SMOOTH, KINDS };
static const char *const kind_name[KINDS] = {"smooth", "random", "special", "integral",
                                             "integral-smooth"};

/* Element i of the stream (owner, salt) of a kind, as a double. */
static double dvalue(int kind, uint64_t owner, uint64_t salt, uint64_t i)
{
    const uint64_t key = (owner << 40) ^ (salt << 20);
    const double smooth =
        1000.0 * sin(1e-3 * (double)i + 0.1 * (double)owner + (double)(salt % 97));
    uint64_t bits = zt_mix(key ^ i);
    double d;
    switch (kind) {
    case K_SMOOTH:
        return smooth + 0.5 * (double)(i % 4096);
    case K_RANDOM:
        memcpy(&d, &bits, sizeof d);
        return d;
    case K_SPECIAL:
        /* Runs of one class, 37 elements long, each element its own payload. */
        switch (zt_mix(key ^ (i / 37) ^ 0x5555) % 8) {
        case 0:
        case 1:
        case 2:
            return 0.0;
        case 3:
            return -0.0;
        case 4:
            bits = 0x7ff0000000000000ull | (bits & 0x000fffffffffffffull) | 1u; /* NaN payload */
            break;
        case 5:
            bits &= 0x800fffffffffffffull; /* denormal */
            break;
        case 6:
            bits = (bits & 0x8000000000000000ull) | 0x7ff0000000000000ull; /* infinity */
            break;
        default:
            return smooth;
        }
        memcpy(&d, &bits, sizeof d);
        return d;
    case K_INTEGRAL:
        return (double)(int64_t)(bits % 2001) - 1000.0;
    default:
        return round(smooth / 2.0);
    }
}

/* Writes element i of the stream, in its base type, at dst. */
static void put_element(unsigned char *dst, enum base b, int kind, uint64_t owner, uint64_t salt,
                        uint64_t i)
{
    if (B_BYTE == b) {
        const double d = dvalue(kind, owner, salt, i / 8);
        *dst = ((const unsigned char *)&d)[i % 8];
        return;
    }
    const double d = dvalue(kind, owner, salt, i);
    if (B_DOUBLE == b) {
        memcpy(dst, &d, 8);
    } else if (B_FLOAT == b) {
        float f;
        if (K_RANDOM == kind) {
            const uint32_t bits = (uint32_t)zt_mix((owner << 40) ^ (salt << 20) ^ i ^ 0x77);
            memcpy(&f, &bits, 4);
        } else {
            f = (float)d;
        }
        memcpy(dst, &f, 4);
    } else {
        int32_t v;
        if (K_RANDOM == kind) {
            v = (int32_t)(uint32_t)zt_mix((owner << 40) ^ (salt << 20) ^ i ^ 0x99);
        } else {
            v = isfinite(d) && fabs(d) < 2e9 ? (int32_t)d : 7;
        }
        memcpy(dst, &v, 4);
    }
}

/* Writes `count` items of the stream (owner, salt) at buf + byte offset, leaving the holes. */
static void put_block(unsigned char *buf, size_t offset, const soak_type_t *t, int count, int kind,
                      uint64_t owner, uint64_t salt)
{
    for (int j = 0; j < count; ++j)
        for (int f = 0; f < t->fields; ++f)
            put_element(buf + offset + (size_t)j * t->extent + t->offset[f], t->base[f], kind,
                        owner, salt, (uint64_t)j * t->fields + f);
}

static const uint8_t SENTINEL = 0xa5;

/* n bytes (and one more, so that n = 0 gives a pointer) of `fill`; aborts without memory. */
static unsigned char *alloc_bytes(size_t n, uint8_t fill)
{
    unsigned char *b = malloc(n + 1); /* never NULL for n = 0 */
    if (NULL == b) {
        fprintf(stderr, "soak: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(b, fill, n + 1);
    return b;
}

#endif
