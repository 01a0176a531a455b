/*
 * MCA parameters of both components as tables: each component lists its parameters (name,
 * help, type, level, scope, storage, default) and registers them with one call, so that the
 * registration code and its conventions live in one place.
 */
#ifndef ZIP_OMPI_MCA_H
#define ZIP_OMPI_MCA_H

#include <stdbool.h>
#include <stddef.h>

#include "opal/mca/base/mca_base_component_repository.h"
#include "opal/mca/base/mca_base_var.h"

typedef struct zip_ompi_param {
    const char *name;
    mca_base_var_info_lvl_t level;
    mca_base_var_scope_t scope;
    mca_base_var_type_t type; /* INT, BOOL, SIZE_T, DOUBLE or STRING */
    void *storage;            /* int, bool, size_t, double or char * by type */
    union {                   /* written to storage before registration, as MCA expects */
        int i;
        bool b;
        size_t z;
        double d;
        const char *s;
    } initial;
    const char *help;
} zip_ompi_param_t;

/* The type, storage and default of a table entry. */
#define ZIP_OMPI_PARAM_INT(storage, value)                                                         \
    MCA_BASE_VAR_TYPE_INT, (storage),                                                              \
    {                                                                                              \
        .i = (value)                                                                               \
    }
#define ZIP_OMPI_PARAM_BOOL(storage, value)                                                        \
    MCA_BASE_VAR_TYPE_BOOL, (storage),                                                             \
    {                                                                                              \
        .b = (value)                                                                               \
    }
#define ZIP_OMPI_PARAM_SIZE(storage, value)                                                        \
    MCA_BASE_VAR_TYPE_SIZE_T, (storage),                                                           \
    {                                                                                              \
        .z = (value)                                                                               \
    }
#define ZIP_OMPI_PARAM_DOUBLE(storage, value)                                                      \
    MCA_BASE_VAR_TYPE_DOUBLE, (storage),                                                           \
    {                                                                                              \
        .d = (value)                                                                               \
    }
#define ZIP_OMPI_PARAM_STRING(storage, value)                                                      \
    MCA_BASE_VAR_TYPE_STRING, (storage),                                                           \
    {                                                                                              \
        .s = (value)                                                                               \
    }

/* Registers params[0..count) as variables of component (mca_base_component_var_register),
 * each after storing its default. */
void zip_ompi_params_register(const mca_base_component_t *component, const zip_ompi_param_t *params,
                              size_t count);

#endif /* ZIP_OMPI_MCA_H */
