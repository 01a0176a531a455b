/*
 * Element types of recorded payloads, judged by the datatype's type signature through the public
 * MPI API (envelope and contents), so that Fortran's and C's names of one type agree: a named
 * type is a float, complex or integer by what it is and f64/f32/i64/i32 by its size; a derived
 * type has the element type its basic types share, or bytes if they differ.
 */
#include "msgrec.h"

#include <stdlib.h>

typedef enum kind { KIND_OTHER, KIND_FLOAT, KIND_COMPLEX, KIND_INTEGER } kind_t;

const char *msgrec_elem_name(msgrec_elem_t elem)
{
    switch (elem) {
    case MSGREC_F64:
        return "f64";
    case MSGREC_F32:
        return "f32";
    case MSGREC_I32:
        return "i32";
    case MSGREC_I64:
        return "i64";
    default:
        return "bytes";
    }
}

static int is_one_of(MPI_Datatype t, const MPI_Datatype *list, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (list[i] != MPI_DATATYPE_NULL && t == list[i])
            return 1;
    return 0;
}

static kind_t kind_of_named(MPI_Datatype t)
{
    const MPI_Datatype floats[] = {MPI_FLOAT, MPI_DOUBLE,           MPI_REAL,
                                   MPI_REAL4, MPI_DOUBLE_PRECISION, MPI_REAL8};
    const MPI_Datatype complexes[] = {MPI_C_FLOAT_COMPLEX,   MPI_C_DOUBLE_COMPLEX,  MPI_COMPLEX,
                                      MPI_DOUBLE_COMPLEX,    MPI_COMPLEX8,          MPI_COMPLEX16,
                                      MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX};
    const MPI_Datatype c_integers[] = {MPI_INT,           MPI_UNSIGNED,  MPI_LONG,
                                       MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG,
                                       MPI_INT32_T,       MPI_UINT32_T,  MPI_INT64_T,
                                       MPI_UINT64_T};
    const MPI_Datatype other_integers[] = {MPI_INTEGER, MPI_INTEGER4, MPI_INTEGER8,
                                           MPI_AINT,    MPI_OFFSET,   MPI_COUNT};
    if (is_one_of(t, floats, sizeof floats / sizeof *floats))
        return KIND_FLOAT;
    if (is_one_of(t, complexes, sizeof complexes / sizeof *complexes))
        return KIND_COMPLEX;
    if (is_one_of(t, c_integers, sizeof c_integers / sizeof *c_integers) ||
        is_one_of(t, other_integers, sizeof other_integers / sizeof *other_integers))
        return KIND_INTEGER;
    return KIND_OTHER;
}

static msgrec_elem_t classify_named(MPI_Datatype t)
{
    int size = 0;
    PMPI_Type_size(t, &size);
    switch (kind_of_named(t)) {
    case KIND_FLOAT:
        return size == 8 ? MSGREC_F64 : size == 4 ? MSGREC_F32 : MSGREC_BYTES;
    case KIND_COMPLEX: /* a pair of reals */
        return size == 16 ? MSGREC_F64 : size == 8 ? MSGREC_F32 : MSGREC_BYTES;
    case KIND_INTEGER:
        return size == 8 ? MSGREC_I64 : size == 4 ? MSGREC_I32 : MSGREC_BYTES;
    default:
        return MSGREC_BYTES;
    }
}

/* -1 before the first basic type is seen, then its element type, MSGREC_BYTES once two differ. */
static void merge(int *acc, msgrec_elem_t elem)
{
    if (*acc < 0)
        *acc = (int)elem;
    else if (*acc != (int)elem)
        *acc = MSGREC_BYTES;
}

static void walk(MPI_Datatype t, int *acc, int depth)
{
    int ni = 0, na = 0, nd = 0, combiner = MPI_COMBINER_NAMED;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS || depth > 32) {
        *acc = MSGREC_BYTES;
        return;
    }
    if (combiner == MPI_COMBINER_NAMED) {
        merge(acc, classify_named(t));
        return;
    }
    if (nd == 0) { /* the f90 parameterised types: contents hold no datatype */
        *acc = MSGREC_BYTES;
        return;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni ? ni : 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na ? na : 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)nd);
    if (!ints || !addrs || !types ||
        PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) {
        *acc = MSGREC_BYTES;
    } else {
        for (int i = 0; i < nd; ++i) {
            walk(types[i], acc, depth + 1);
            int sub_ni, sub_na, sub_nd, sub = MPI_COMBINER_NAMED;
            PMPI_Type_get_envelope(types[i], &sub_ni, &sub_na, &sub_nd, &sub);
            if (sub != MPI_COMBINER_NAMED) /* get_contents handed out a new reference */
                PMPI_Type_free(&types[i]);
        }
    }
    free(ints);
    free(addrs);
    free(types);
}

msgrec_elem_t msgrec_classify(MPI_Datatype type)
{
    int acc = -1;
    walk(type, &acc, 0);
    return acc < 0 ? MSGREC_BYTES : (msgrec_elem_t)acc;
}
