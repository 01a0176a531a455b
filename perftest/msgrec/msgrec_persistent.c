/*
 * Persistent sends (MPI_Send_init and kin) send their buffer's contents at every MPI_Start, so
 * they are remembered by request and recorded at each start. A derived datatype is duplicated
 * (the application may free its own handle after the init); the peer is kept as a rank of comm
 * together with comm, which the request keeps valid.
 */
#include "msgrec.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct persistent_send {
    MPI_Request req;
    const char *op;
    const void *buf;
    int count, dest, tag;
    MPI_Datatype type;
    int type_owned; /* type is our duplicate, freed with the entry */
    MPI_Comm comm;
} persistent_send_t;

static persistent_send_t *sends;
static size_t used, cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static persistent_send_t *find(MPI_Request req)
{
    for (size_t i = 0; i < used; ++i)
        if (sends[i].req == req)
            return &sends[i];
    return NULL;
}

static void drop(persistent_send_t *s)
{
    if (s->type_owned)
        PMPI_Type_free(&s->type);
    *s = sends[--used];
}

void msgrec_persistent_add(MPI_Request req, const char *op, const void *buf, int count,
                           MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    int ni, na, nd, combiner = MPI_COMBINER_NAMED;
    PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    persistent_send_t s = {req, op, buf, count, dest, tag, type, 0, comm};
    if (combiner != MPI_COMBINER_NAMED) {
        if (PMPI_Type_dup(type, &s.type) != MPI_SUCCESS)
            return;
        s.type_owned = 1;
    }
    pthread_mutex_lock(&lock);
    persistent_send_t *old = find(req);
    if (old) /* a handle that was freed and handed out again */
        drop(old);
    if (used == cap) {
        size_t n = cap ? 2 * cap : 64;
        persistent_send_t *p = realloc(sends, n * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&lock);
            if (s.type_owned)
                PMPI_Type_free(&s.type);
            return;
        }
        sends = p;
        cap = n;
    }
    sends[used++] = s;
    pthread_mutex_unlock(&lock);
}

void msgrec_persistent_forget(MPI_Request req)
{
    pthread_mutex_lock(&lock);
    persistent_send_t *s = find(req);
    if (s)
        drop(s);
    pthread_mutex_unlock(&lock);
}

void msgrec_persistent_start(MPI_Request req)
{
    pthread_mutex_lock(&lock);
    persistent_send_t *s = find(req), copy = {0};
    const int found = s != NULL;
    if (found)
        copy = *s;
    pthread_mutex_unlock(&lock);
    if (found)
        msgrec_send(copy.op, copy.buf, copy.count, copy.type, copy.dest, copy.tag, copy.comm);
}
