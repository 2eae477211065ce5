/*
 * trt-eng.c - the engine model both TensorRT readers fill (trt.h): key/value facts, the inputs
 * list, the layers by name. Below trt.c (which dispatches to trt-log.c for a trtexec log) and
 * trt-log.c, which both call these (tests/e2e/t005-link-graph.sh).
 */
#include "core/grow.h"
#include "ingest/trt.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int trt_kv_add(struct trt_eng *e, const char *key, const char *value, size_t vlen)
{
    for (size_t i = 0; i < e->nkv; i++) /* a later file or line says it again: the last wins */
        if (!strcmp(e->kv[i].key, key)) {
            char *v = strndup(value, vlen);
            if (!v) return -ENOMEM;
            free(e->kv[i].value);
            e->kv[i].value = v;
            return 0;
        }
    int rc = LAT_GROW(e->kv, e->kv_cap, e->nkv, 1, 32);
    if (rc) return rc;
    char *k = strdup(key), *v = strndup(value, vlen);
    if (!k || !v) {
        free(k);
        free(v);
        return -ENOMEM;
    }
    e->kv[e->nkv].key = k;
    e->kv[e->nkv++].value = v;
    return 0;
}

void trt_note_input(struct trt_eng *e, const char *what)
{
    if (strstr(e->inputs, what)) return;
    size_t l = strlen(e->inputs);
    snprintf(e->inputs + l, sizeof(e->inputs) - l, "%s%s", l ? "," : "", what);
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Rebuilds the name index (open addressing, slots hold layer index + 1) at twice the layers. */
static int index_grow(struct trt_eng *e)
{
    size_t cap = e->idx_cap ? e->idx_cap * 2 : 256;
    uint32_t *ix = calloc(cap, sizeof(*ix));
    if (!ix) return -ENOMEM;
    for (size_t i = 0; i < e->nlayers; i++) {
        size_t k = (size_t)name_hash(e->layers[i].name) & (cap - 1);
        while (ix[k])
            k = (k + 1) & (cap - 1);
        ix[k] = (uint32_t)i + 1;
    }
    free(e->idx);
    e->idx = ix;
    e->idx_cap = cap;
    return 0;
}

/* The layer named name (created when absent; NULL on ENOMEM or past 2^31 layers). */
static struct trt_layer *layer_get(struct trt_eng *e, const char *name, bool *created)
{
    *created = false;
    if ((e->nlayers + 1) * 2 > e->idx_cap && index_grow(e)) return NULL;
    size_t k = (size_t)name_hash(name) & (e->idx_cap - 1);
    for (; e->idx[k]; k = (k + 1) & (e->idx_cap - 1))
        if (!strcmp(e->layers[e->idx[k] - 1].name, name)) return &e->layers[e->idx[k] - 1];
    if (e->nlayers >= INT32_MAX) return NULL;
    if (LAT_GROW(e->layers, e->layers_cap, e->nlayers, 1, 64)) return NULL;
    struct trt_layer *l = &e->layers[e->nlayers];
    memset(l, 0, sizeof(*l));
    if (!(l->name = strdup(name))) return NULL;
    e->idx[k] = (uint32_t)e->nlayers + 1;
    e->nlayers++;
    *created = true;
    return l;
}

struct trt_layer *trt_layer_get(struct trt_eng *e, const char *name, bool *created)
{
    return layer_get(e, name, created);
}
