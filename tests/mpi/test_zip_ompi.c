/*
 * The helpers coll/zip and pml/zip share (common/zip_ompi.h), on one rank: which datatypes the
 * codecs see as doubles or floats, contiguous views, packing and unpacking (truncation
 * included), the codec spec for MPI traffic, the values of the on/off Info keys, and the pool of
 * idle codec contexts (zip_ompi_ctx_pool.h). Prints "PASS: zip_ompi" when every check holds.
 *
 * Build (white box: it links the shared helpers and the engine, not a component):
 *   mpicc -I common -I codecs/include tests/mpi/test_zip_ompi.c build/common/.libs/libzipompi.a \
 *       build/codecs/.libs/libzipcodec.a -lopen-pal -llz4 -lzstd -lxxhash -lstdc++ -lm
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zip_ompi.h"
#include "zip_ompi_ctx_pool.h"

static int failures = 0;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ++failures;                                                                            \
            printf("FAIL (line %d): ", __LINE__);                                                  \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static const char *type_name(zip_elem_type_t t)
{
    return ZIP_TYPE_F64 == t   ? "F64"
           : ZIP_TYPE_F32 == t ? "F32"
           : ZIP_TYPE_I32 == t ? "I32"
           : ZIP_TYPE_I64 == t ? "I64"
                               : "BYTES";
}

static void expect_type(MPI_Datatype dtype, zip_elem_type_t want, const char *what)
{
    const zip_elem_type_t got = zip_ompi_elem_type(dtype);
    CHECK(got == want, "%s: element type %s, expected %s", what, type_name(got), type_name(want));
}

/* Predefined types, every alias the codecs could be handed (MPI_DATATYPE_NULL where this
 * build lacks one, e.g. without Fortran, is skipped). */
static void check_predefined(void)
{
    const struct {
        MPI_Datatype t;
        zip_elem_type_t want;
        const char *name;
    } cases[] = {
        {MPI_DOUBLE, ZIP_TYPE_F64, "MPI_DOUBLE"},
        {MPI_DOUBLE_PRECISION, ZIP_TYPE_F64, "MPI_DOUBLE_PRECISION"},
        {MPI_REAL8, ZIP_TYPE_F64, "MPI_REAL8"},
        {MPI_C_DOUBLE_COMPLEX, ZIP_TYPE_F64, "MPI_C_DOUBLE_COMPLEX"},
        {MPI_DOUBLE_COMPLEX, ZIP_TYPE_F64, "MPI_DOUBLE_COMPLEX"},
        {MPI_COMPLEX16, ZIP_TYPE_F64, "MPI_COMPLEX16"},
        {MPI_CXX_DOUBLE_COMPLEX, ZIP_TYPE_F64, "MPI_CXX_DOUBLE_COMPLEX"},
        {MPI_FLOAT, ZIP_TYPE_F32, "MPI_FLOAT"},
        {MPI_REAL, ZIP_TYPE_F32, "MPI_REAL"},
        {MPI_REAL4, ZIP_TYPE_F32, "MPI_REAL4"},
        {MPI_C_FLOAT_COMPLEX, ZIP_TYPE_F32, "MPI_C_FLOAT_COMPLEX"},
        {MPI_COMPLEX, ZIP_TYPE_F32, "MPI_COMPLEX"},
        {MPI_COMPLEX8, ZIP_TYPE_F32, "MPI_COMPLEX8"},
        {MPI_CXX_FLOAT_COMPLEX, ZIP_TYPE_F32, "MPI_CXX_FLOAT_COMPLEX"},
        {MPI_BYTE, ZIP_TYPE_BYTES, "MPI_BYTE"},
        {MPI_CHAR, ZIP_TYPE_BYTES, "MPI_CHAR"},
        {MPI_INT, ZIP_TYPE_I32, "MPI_INT"},
        {MPI_UNSIGNED, ZIP_TYPE_I32, "MPI_UNSIGNED"},
        {MPI_INT32_T, ZIP_TYPE_I32, "MPI_INT32_T"},
        {MPI_UINT32_T, ZIP_TYPE_I32, "MPI_UINT32_T"},
        {MPI_INTEGER, ZIP_TYPE_I32, "MPI_INTEGER"},
        {MPI_INTEGER4, ZIP_TYPE_I32, "MPI_INTEGER4"},
        {MPI_2INT, ZIP_TYPE_I32, "MPI_2INT"},
        {MPI_LONG, sizeof(long) == 8 ? ZIP_TYPE_I64 : ZIP_TYPE_I32, "MPI_LONG"},
        {MPI_UNSIGNED_LONG, sizeof(long) == 8 ? ZIP_TYPE_I64 : ZIP_TYPE_I32, "MPI_UNSIGNED_LONG"},
        {MPI_INT64_T, ZIP_TYPE_I64, "MPI_INT64_T"},
        {MPI_UINT64_T, ZIP_TYPE_I64, "MPI_UINT64_T"},
        {MPI_LONG_LONG, ZIP_TYPE_I64, "MPI_LONG_LONG"},
        {MPI_UNSIGNED_LONG_LONG, ZIP_TYPE_I64, "MPI_UNSIGNED_LONG_LONG"},
        {MPI_INTEGER8, ZIP_TYPE_I64, "MPI_INTEGER8"},
        {MPI_AINT, ZIP_TYPE_I64, "MPI_AINT"},
        {MPI_OFFSET, ZIP_TYPE_I64, "MPI_OFFSET"},
        {MPI_COUNT, ZIP_TYPE_I64, "MPI_COUNT"},
        {MPI_SHORT, ZIP_TYPE_BYTES, "MPI_SHORT"},
        {MPI_INT8_T, ZIP_TYPE_BYTES, "MPI_INT8_T"},
        {MPI_LONG_INT, ZIP_TYPE_BYTES, "MPI_LONG_INT"},
        {MPI_LONG_DOUBLE, ZIP_TYPE_BYTES, "MPI_LONG_DOUBLE"},
        {MPI_C_LONG_DOUBLE_COMPLEX, ZIP_TYPE_BYTES, "MPI_C_LONG_DOUBLE_COMPLEX"},
        {MPI_PACKED, ZIP_TYPE_BYTES, "MPI_PACKED"},
        {MPI_DOUBLE_INT, ZIP_TYPE_BYTES, "MPI_DOUBLE_INT"},
        {MPI_FLOAT_INT, ZIP_TYPE_BYTES, "MPI_FLOAT_INT"},
        {MPI_2DOUBLE_PRECISION, ZIP_TYPE_F64, "MPI_2DOUBLE_PRECISION"},
        {MPI_2REAL, ZIP_TYPE_F32, "MPI_2REAL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        if (MPI_DATATYPE_NULL != cases[i].t) {
            expect_type(cases[i].t, cases[i].want, cases[i].name);
        }
    }
}

/* A committed struct of one `a` at 0 and n x `b` at byte offset disp. */
static MPI_Datatype pair(MPI_Datatype a, MPI_Datatype b, int n, MPI_Aint disp)
{
    int len[2] = {1, n};
    MPI_Aint disps[2] = {0, disp};
    MPI_Datatype types[2] = {a, b}, t;
    MPI_Type_create_struct(2, len, disps, types, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Derived types: the signature decides, not the handle. */
static void check_derived(void)
{
    MPI_Datatype vec, dup, resized, flt_vec, nested;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec);
    MPI_Type_dup(MPI_DOUBLE, &dup);
    MPI_Type_create_resized(MPI_DOUBLE, 0, 24, &resized);
    MPI_Type_vector(4, 1, 3, MPI_FLOAT, &flt_vec);
    MPI_Type_contiguous(5, vec, &nested);
    MPI_Datatype all[] = {vec,
                          dup,
                          resized,
                          flt_vec,
                          nested,
                          pair(MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX, 2, 16),
                          pair(MPI_DOUBLE, MPI_INT, 1, 8),
                          pair(MPI_FLOAT, MPI_DOUBLE, 1, 8),
                          pair(MPI_FLOAT, MPI_C_FLOAT_COMPLEX, 1, 4),
                          pair(MPI_INT, MPI_UNSIGNED, 2, 4),
                          pair(MPI_INT64_T, MPI_LONG_LONG, 3, 8),
                          pair(MPI_INT, MPI_INT64_T, 1, 8),
                          pair(MPI_INT, MPI_FLOAT, 1, 4)};
    const zip_elem_type_t want[] = {ZIP_TYPE_F64,  ZIP_TYPE_F64, ZIP_TYPE_F64,   ZIP_TYPE_F32,
                                    ZIP_TYPE_F64,  ZIP_TYPE_F64, ZIP_TYPE_BYTES, ZIP_TYPE_BYTES,
                                    ZIP_TYPE_F32,  ZIP_TYPE_I32, ZIP_TYPE_I64,   ZIP_TYPE_BYTES,
                                    ZIP_TYPE_BYTES};
    const char *what[] = {"vector of MPI_DOUBLE",
                          "dup of MPI_DOUBLE",
                          "MPI_DOUBLE resized to 24 bytes",
                          "vector of MPI_FLOAT",
                          "contiguous of a vector of MPI_DOUBLE",
                          "struct of double and double complex",
                          "struct of double and int",
                          "struct of float and double",
                          "struct of float and float complex",
                          "struct of int and unsigned",
                          "struct of int64_t and long long",
                          "struct of int and int64_t",
                          "struct of int and float"};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        MPI_Type_commit(&all[i]);
        expect_type(all[i], want[i], what[i]);
        MPI_Type_free(&all[i]);
    }
}

static void check_contiguous_base(void)
{
    double buf[64] = {0};
    CHECK((char *)buf == zip_ompi_contiguous_base(buf, 64, MPI_DOUBLE), "MPI_DOUBLE x 64");
    /* size_t counts: only pointers are computed, nothing is touched. */
    CHECK((char *)buf == zip_ompi_contiguous_base(buf, (size_t)INT32_MAX + 10, MPI_DOUBLE),
          "MPI_DOUBLE x (2^31 + 9)");

    MPI_Datatype vec, shifted;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    CHECK(NULL == zip_ompi_contiguous_base(buf, 1, vec), "a strided vector is not contiguous");

    /* One double 16 bytes into a 24-byte extent: contiguous alone, not when repeated. */
    int len = 1;
    MPI_Aint disp = 16;
    MPI_Datatype d = MPI_DOUBLE, tmp;
    MPI_Type_create_struct(1, &len, &disp, &d, &tmp);
    MPI_Type_create_resized(tmp, 0, 24, &shifted);
    MPI_Type_commit(&shifted);
    CHECK((char *)buf + 16 == zip_ompi_contiguous_base(buf, 1, shifted),
          "one element starts at its true lower bound");
    CHECK(NULL == zip_ompi_contiguous_base(buf, 2, shifted), "two elements with a gap");
    MPI_Type_free(&tmp);
    MPI_Type_free(&shifted);
    MPI_Type_free(&vec);
}

/* count x (3 blocks of 2 doubles, 4 apart): packs to what MPI_Pack makes, unpacks back into
 * the blocks only, and truncates like a receive. */
static void check_pack_unpack(void)
{
    enum { COUNT = 5, PER = 6, EXTENT = 10 }; /* elements of the vector, its extent in doubles */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);

    double user[COUNT * EXTENT + 8], want[COUNT * PER], packed[COUNT * PER + 1];
    for (size_t i = 0; i < sizeof user / sizeof user[0]; ++i) {
        user[i] = 0.5 + (double)i;
    }
    int pos = 0;
    MPI_Pack(user, COUNT, vec, want, (int)sizeof want, &pos, MPI_COMM_SELF);
    CHECK(pos == (int)sizeof want, "MPI_Pack wrote %d bytes", pos);

    packed[COUNT * PER] = -1.0; /* guard */
    CHECK(MPI_SUCCESS == zip_ompi_pack(packed, user, COUNT, vec), "pack returns MPI_SUCCESS");
    CHECK(0 == memcmp(packed, want, sizeof want), "pack gives MPI_Pack's bytes");
    CHECK(-1.0 == packed[COUNT * PER], "pack writes no more than count x size");

    double back[COUNT * EXTENT + 8];
    memset(back, 0, sizeof back);
    CHECK(MPI_SUCCESS == zip_ompi_unpack(packed, sizeof want, back, COUNT, vec),
          "unpack of exactly count x size returns MPI_SUCCESS");
    int blocks_ok = 1, gaps_ok = 1;
    for (int e = 0; e < COUNT; ++e) {
        for (int k = 0; k < EXTENT; ++k) {
            const int i = e * EXTENT + k;
            if (k % 4 < 2) { /* the blocks: offsets 0,1 4,5 8,9 of 10 */
                blocks_ok &= back[i] == user[i];
            } else {
                gaps_ok &= 0.0 == back[i];
            }
        }
    }
    CHECK(blocks_ok, "unpack fills every block");
    CHECK(gaps_ok, "unpack leaves the gaps alone");

    /* Too much data: what fits is copied, MPI_ERR_TRUNCATE. */
    memset(back, 0, sizeof back);
    CHECK(MPI_ERR_TRUNCATE == zip_ompi_unpack(packed, sizeof want, back, COUNT - 1, vec),
          "unpack of more than fits returns MPI_ERR_TRUNCATE");
    CHECK(back[(COUNT - 2) * EXTENT + 9] == user[(COUNT - 2) * EXTENT + 9],
          "the last element that fits is copied");
    CHECK(0.0 == back[(COUNT - 1) * EXTENT], "nothing is written past count elements");

    /* Contiguous: the same rules. */
    double flat[8] = {0}, src[9];
    for (int i = 0; i < 9; ++i) {
        src[i] = 1.0 + i;
    }
    CHECK(MPI_ERR_TRUNCATE == zip_ompi_unpack(src, sizeof src, flat, 7, MPI_DOUBLE),
          "contiguous truncation returns MPI_ERR_TRUNCATE");
    CHECK(7.0 == flat[6] && 0.0 == flat[7], "contiguous truncation copies exactly what fits");
    memset(flat, 0, sizeof flat);
    CHECK(MPI_SUCCESS == zip_ompi_unpack(src, 3 * sizeof(double), flat, 8, MPI_DOUBLE),
          "a shorter message is not an error");
    CHECK(3.0 == flat[2] && 0.0 == flat[3], "a shorter message fills the first elements only");

    /* Short message into a vector: the first elements only. */
    memset(back, 0, sizeof back);
    CHECK(MPI_SUCCESS == zip_ompi_unpack(packed, PER * sizeof(double), back, COUNT, vec),
          "one element of data into five");
    CHECK(back[9] == user[9] && 0.0 == back[EXTENT], "only the first element is filled");
    CHECK(MPI_SUCCESS == zip_ompi_unpack(packed, 0, back, COUNT, vec), "zero bytes");
    MPI_Type_free(&vec);
}

static void expect_codec(const char *lossless, const char *lossy, zip_ompi_codec_status_t want,
                         const char *asked, const char *spec)
{
    zip_ompi_codec_t c;
    zip_ctx_t *ctx = NULL;
    const zip_ompi_codec_status_t st = zip_ompi_codec_resolve(lossless, lossy, &c, &ctx);
    const char *l = lossless ? lossless : "(null)", *y = lossy ? lossy : "(null)";
    CHECK(st == want, "codec %s / lossy %s: status %d, expected %d", l, y, (int)st, (int)want);
    CHECK(NULL != c.asked && 0 == strcmp(c.asked, asked), "codec %s / lossy %s: asked \"%s\"", l, y,
          c.asked ? c.asked : "(null)");
    CHECK((NULL == spec && NULL == c.spec) ||
              (NULL != spec && NULL != c.spec && 0 == strcmp(spec, c.spec)),
          "codec %s / lossy %s: spec \"%s\"", l, y, c.spec ? c.spec : "(null)");
    CHECK((NULL != c.spec) == (NULL != ctx), "codec %s / lossy %s: a context with a spec", l, y);
    CHECK((ZIP_OMPI_CODEC_OK == st) == (NULL == c.reason), "codec %s / lossy %s: a reason", l, y);
    if (NULL != ctx) {
        CHECK(NULL != zip_ctx_spec(ctx), "the context has a spec");
        zip_ctx_destroy(ctx);
    }
    zip_ompi_codec_release(&c);
    CHECK(NULL == c.asked && NULL == c.spec, "release clears");
}

static void check_codec(void)
{
    expect_codec(NULL, NULL, ZIP_OMPI_CODEC_OK, "fast", "fast");
    expect_codec("", "", ZIP_OMPI_CODEC_OK, "fast", "fast");
    expect_codec("fpc", NULL, ZIP_OMPI_CODEC_OK, "fpc", "fpc");
    expect_codec("zstd", "trunc:20", ZIP_OMPI_CODEC_OK, "trunc:20+zstd", "trunc:20+zstd");
    expect_codec(NULL, "trunc:20", ZIP_OMPI_CODEC_OK, "trunc:20+fast", "trunc:20+fast");
    expect_codec("temporal", NULL, ZIP_OMPI_CODEC_REFUSED, "temporal", "fast");
    expect_codec("temporal:bogus=1", NULL, ZIP_OMPI_CODEC_REFUSED, "temporal:bogus=1", "fast");
    expect_codec("temporal", "trunc:20", ZIP_OMPI_CODEC_REFUSED, "trunc:20+temporal", "fast");
    expect_codec("bogus", NULL, ZIP_OMPI_CODEC_INVALID, "bogus", NULL);
    expect_codec("fast", "bogus:1", ZIP_OMPI_CODEC_INVALID, "bogus:1+fast", NULL);

    /* Without a context out: the check's context is not leaked (ASan) and nothing else
     * changes. */
    zip_ompi_codec_t c;
    CHECK(ZIP_OMPI_CODEC_OK == zip_ompi_codec_resolve("lz4", NULL, &c, NULL), "lz4 without ctx");
    zip_ompi_codec_release(&c);
}

/* The on/off Info keys (zip_p2p, zip_coll): both spellings of each, any case; the rest is
 * neither, so that the component's own setting stays. */
static void check_info_switch(void)
{
    const char *const on[] = {"true", "TRUE", "yes", "Yes", "1"};
    const char *const off[] = {"false", "False", "no", "NO", "0"};
    const char *const neither[] = {"default", "", "off", "00", "false ", "2", "truth"};
    for (size_t i = 0; i < sizeof on / sizeof *on; ++i)
        CHECK(1 == zip_ompi_info_switch(on[i]), "\"%s\" is on", on[i]);
    for (size_t i = 0; i < sizeof off / sizeof *off; ++i)
        CHECK(0 == zip_ompi_info_switch(off[i]), "\"%s\" is off", off[i]);
    for (size_t i = 0; i < sizeof neither / sizeof *neither; ++i)
        CHECK(-1 == zip_ompi_info_switch(neither[i]), "\"%s\" is neither", neither[i]);
    CHECK(-1 == zip_ompi_info_switch(NULL), "NULL is neither");
}

/* The pool's make function for check_ctx_pool: counts the contexts it made; fails while
 * make_fails is set. */
static int made = 0, make_fails = 0;

static zip_ctx_t *counted_make(void)
{
    if (make_fails) {
        return NULL;
    }
    zip_status_t status = ZIP_OK;
    zip_ctx_t *ctx = zip_ctx_create("fast", &status);
    made += NULL != ctx;
    return ctx;
}

static void check_ctx_pool(void)
{
    static zip_ompi_ctx_pool_t pool = ZIP_OMPI_CTX_POOL_INIT(counted_make, 2);
    zip_ctx_t *a = zip_ompi_ctx_take(&pool);
    CHECK(NULL != a && 1 == made, "an empty pool makes a context (made %d)", made);
    zip_ompi_ctx_give(&pool, a);
    CHECK(a == zip_ompi_ctx_take(&pool) && 1 == made, "a context given back is taken again");
    zip_ctx_t *b = zip_ompi_ctx_take(&pool), *c = zip_ompi_ctx_take(&pool);
    CHECK(NULL != b && NULL != c && a != b && b != c && 3 == made,
          "contexts in use are not handed out twice (made %d)", made);
    zip_ompi_ctx_give(&pool, a);
    zip_ompi_ctx_give(&pool, b);
    zip_ompi_ctx_give(&pool, c); /* beyond the 2 kept: freed */
    zip_ompi_ctx_give(&pool, NULL);
    CHECK(2 == pool.idle_count, "the pool keeps 2 idle contexts, not %d", pool.idle_count);
    zip_ctx_t *d = zip_ompi_ctx_take(&pool), *e = zip_ompi_ctx_take(&pool);
    CHECK(NULL != d && NULL != e && 3 == made, "the kept contexts are taken before any is made");
    /* A taken context still codes: round trip of a few doubles. */
    double x[512], y[512];
    for (int i = 0; i < 512; ++i)
        x[i] = 0.5 * i;
    unsigned char frame[8192];
    size_t len = 0, raw = 0;
    CHECK(ZIP_OK == zip_compress(d, 0, ZIP_TYPE_F64, x, 512, frame, sizeof frame, &len) &&
              ZIP_OK == zip_decompress(d, 0, frame, len, y, sizeof y, &raw) && sizeof y == raw &&
              0 == memcmp(x, y, sizeof x),
          "a pooled context codes a round trip");
    make_fails = 1;
    CHECK(NULL == zip_ompi_ctx_take(&pool), "an empty pool whose make fails gives NULL");
    make_fails = 0;
    zip_ompi_ctx_give(&pool, d);
    zip_ompi_ctx_give(&pool, e);
    zip_ompi_ctx_pool_fini(&pool);
    CHECK(0 == pool.idle_count, "fini frees every idle context (%d left)", pool.idle_count);
    zip_ctx_t *f = zip_ompi_ctx_take(&pool);
    CHECK(NULL != f && 4 == made, "after fini a context is made anew (made %d)", made);
    zip_ompi_ctx_give(&pool, f);
    zip_ompi_ctx_pool_fini(&pool);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_predefined();
    check_derived();
    check_contiguous_base();
    check_pack_unpack();
    check_codec();
    check_info_switch();
    check_ctx_pool();
    if (0 == failures) {
        printf("PASS: zip_ompi\n");
    } else {
        printf("FAIL: zip_ompi (%d checks)\n", failures);
    }
    MPI_Finalize();
    return 0 == failures ? 0 : 1;
}
