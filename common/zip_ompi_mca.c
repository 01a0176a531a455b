#include "ompi_config.h"

#include "zip_ompi_mca.h"

static void store_default(const zip_ompi_param_t *p)
{
    switch (p->type) {
    case MCA_BASE_VAR_TYPE_INT:
        *(int *)p->storage = p->initial.i;
        break;
    case MCA_BASE_VAR_TYPE_BOOL:
        *(bool *)p->storage = p->initial.b;
        break;
    case MCA_BASE_VAR_TYPE_SIZE_T:
        *(size_t *)p->storage = p->initial.z;
        break;
    case MCA_BASE_VAR_TYPE_DOUBLE:
        *(double *)p->storage = p->initial.d;
        break;
    default: /* MCA_BASE_VAR_TYPE_STRING: the variable system copies it at registration */
        *(const char **)p->storage = p->initial.s;
        break;
    }
}

void zip_ompi_params_register(const mca_base_component_t *component, const zip_ompi_param_t *params,
                              size_t count)
{
    for (size_t k = 0; k < count; ++k) {
        const zip_ompi_param_t *p = &params[k];
        store_default(p);
        /* No enumerator, binding or flags: no zip parameter uses them. A failed registration
         * leaves the default in place, which is what the component then runs with. */
        (void)mca_base_component_var_register(component, p->name, p->help, p->type, NULL, 0, 0,
                                              p->level, p->scope, p->storage);
    }
}
