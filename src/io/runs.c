/* runs.c -- CSV/JSON measured-run loader with messages that name file, line and column. */
#include "io/runs.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "io/catalog.h"
#include "io/jsonutil.h"

_Static_assert(TRAINING_FLAG_COUNT <= 64, "run_record.flag_given has a bit per training flag");

/* A row as key -> text, whatever the file format; as many keys as the file has. */
typedef struct row {
    char **keys; /* the file's own strings: CSV header fields, JSON member names */
    char **vals;
    int n;
} row;

static const char *row_get(const row *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->keys[i], key) == 0) return r->vals[i] && *r->vals[i] ? r->vals[i] : NULL;
    return NULL;
}

static int get_int(const row *r, const char *key, int64_t def, int64_t min, int64_t max, int64_t *out,
    const char *where, zs_error *err)
{
    const char *v = row_get(r, key);
    if (!v) {
        *out = def;
        return def < 0 ? zs_fail(err, ZS_ERR_INPUT, "%s: missing \"%s\" (a whole number)", where, key)
                       : ZS_OK;
    }
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || x != floor(x) || x < (double)min || x > (double)max)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: column \"%s\": expected a whole number from %lld to %lld, got \"%s\"", where, key,
            (long long)min, (long long)max, v);
    *out = (int64_t)x;
    return ZS_OK;
}

static int get_num(const row *r, const char *key, double *out, const char *where, zs_error *err)
{
    const char *v = row_get(r, key);
    *out = 0;
    if (!v) return ZS_OK;
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x) || x < 0 || x > 1e18)
        return zs_fail(err, ZS_ERR_INPUT, "%s: column \"%s\": expected a non-negative number, got \"%s\"",
            where, key, v);
    *out = x;
    return ZS_OK;
}

/* A measured fraction (MFU, HFU: PaLM appendix B defines them as achieved / peak FLOP/s). */
static int get_frac(const row *r, const char *key, double *out, const char *where, zs_error *err)
{
    if (get_num(r, key, out, where, err)) return err->code;
    if (*out > 1)
        return zs_fail(err, ZS_ERR_INPUT, "%s: column \"%s\": expected a fraction from 0 to 1, got \"%s\"%s",
            where, key, row_get(r, key), *out <= 100 ? " (a percentage? write it divided by 100)" : "");
    return ZS_OK;
}

/* A relative file path in a runs file names a file beside the runs file (base: its path), else
 * one in the repository (the directory holding the models/ catalog), else one in the working
 * directory as before. A catalog name, an absolute path, or a path found nowhere is left as
 * it is (catalog_resolve then reports it). */
static void resolve_near(char *name, size_t len, const char *base)
{
    size_t nl = strlen(name);
    if (name[0] == '/' || (!strchr(name, '/') && !(nl > 5 && strcmp(name + nl - 5, ".json") == 0))) return;
    char cand[8192], dir[4096];
    const char *slash = base ? strrchr(base, '/') : NULL;
    if (slash) {
        snprintf(cand, sizeof cand, "%.*s/%s", (int)(slash - base), base, name);
        if (access(cand, R_OK) == 0 && strlen(cand) < len) {
            memcpy(name, cand, strlen(cand) + 1);
            return;
        }
    }
    zs_error ignored = {0};
    if (catalog_dir("models", dir, sizeof dir, &ignored) != ZS_OK) return;
    char *up = strrchr(dir, '/');
    if (!up) return; /* the catalog is ./models: the repository is the working directory */
    *up = '\0';
    snprintf(cand, sizeof cand, "%s/%s", dir, name);
    if (access(cand, R_OK) == 0 && strlen(cand) < len) memcpy(name, cand, strlen(cand) + 1);
}

/* A boolean column: "true" or "1", "false" or "0" (any case); absent or empty: def. Anything
 * else ("maybe", "yes") is refused with the file, line and column. */
static int get_bool(const row *r, const char *key, int def, int *out, const char *where, zs_error *err)
{
    const char *v = row_get(r, key);
    if (!v)
        *out = def;
    else if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0)
        *out = 1;
    else if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0)
        *out = 0;
    else
        return zs_fail(err, ZS_ERR_INPUT, "%s: column \"%s\": expected true or false (or 1 or 0), got \"%s\"",
            where, key, v);
    return ZS_OK;
}

/* The text columns, each in the run_record field of its name: the default when absent or
 * empty. */
#define TEXT(field, def, clip)                                                         \
    {                                                                                  \
#field, def, offsetof(run_record, field), sizeof((run_record *)0)->field, clip \
    }
static const struct {
    const char *key, *def;
    size_t offset, len; /* of the field in run_record; its size in bytes */
    bool clip;          /* prose, cut to fit; else a value too long is refused (cut, it would
                           name something else: "deepspeed@0.12.6" as "deepspeed@0.12.") */
} text_columns[] = {
    TEXT(name, "", true),
    TEXT(model, "", false),
    TEXT(hardware, "", false),
    TEXT(strategy, "ddp", false),
    TEXT(precision, "bf16", false),
    TEXT(checkpointing, "none", false),
    TEXT(source, "", true),
    TEXT(framework, "generic", false),
    TEXT(offload_optimizer, "none", false),
    TEXT(offload_params, "none", false),
    TEXT(grad_dtype, "", false),
    TEXT(excluded, "", true),
};
#undef TEXT

/* The whole-number columns, each in the int64_t run_record field of its name (another type
 * does not compile): the default when absent (-1: required) and the range. */
#define INT(field, def, min, max)                                                                        \
    {                                                                                                    \
#field, def, min, max, _Generic(((run_record *)0)->field, int64_t : offsetof(run_record, field)) \
    }
static const struct {
    const char *key;
    int64_t def, min, max;
    size_t offset;
} int_columns[] = {
    INT(gpus, -1, 1, 10000000),
    INT(gpus_per_node, 0, 0, 4096),
    INT(tp, 1, 1, 4096),
    INT(pp, 1, 1, 4096),
    INT(virtual_stages, 1, 1, 1024),
    INT(micro_batch, 1, 1, 1000000),
    INT(global_batch, -1, 1, 1000000000),
    INT(seq_len, -1, 1, 100000000),
    INT(shard_group, 0, 0, 10000000),
    INT(zero_hpz, 0, 0, 10000000),
};
#undef INT

static bool legacy_column(const char *key);

/* Training flags that are no column: gemm-efficiency is a fitted parameter of the framework
 * (fits try values of it), grad-accum follows from global_batch. */
static bool flag_skipped(const char *col)
{
    return strcmp(col, "gemm_efficiency") == 0 || strcmp(col, "grad_accum") == 0;
}

/* Flag row d's column name: its name with _ for - ("tp-comm-overlap" is tp_comm_overlap). */
static void flag_column(const char *name, char *col, size_t len)
{
    snprintf(col, len, "%s", name);
    for (char *c = col; *c; c++)
        if (*c == '-') *c = '_';
}

/* Whether key is a training flag's or a cluster variant's column that the legacy tables do
 * not read. */
static bool flag_column_known(const char *key)
{
    char col[64];
    for (int k = 0; k < TRAINING_FLAG_COUNT; k++) {
        if (!training_flags[k].name) continue;
        flag_column(training_flags[k].name, col, sizeof col);
        if (strcmp(col, key) == 0 && !flag_skipped(col)) return true;
    }
    for (int k = 0; hwvariant_flags[k]; k++) {
        flag_column(hwvariant_flags[k], col, sizeof col);
        if (strcmp(col, key) == 0) return true;
    }
    return false;
}

/* Whether key is a column this reader knows (the text and whole-number tables, the booleans and
 * the measurements, the training flags' and cluster variants' columns). */
static bool known_column(const char *key)
{
    return legacy_column(key) || flag_column_known(key);
}

/* Whether the text, whole-number, boolean or measurement tables read key. */
static bool legacy_column(const char *key)
{
    static const char *const other[] = {"sequence_parallel", "quantized_weights", "quantized_gradients",
        "flash_attention", "overlap_comm", "measured_step_seconds", "measured_tokens_per_second",
        "measured_tflops_per_gpu", "measured_mfu", "measured_hfu", "peak_memory_bytes"};
    for (size_t k = 0; k < sizeof text_columns / sizeof text_columns[0]; k++)
        if (strcmp(key, text_columns[k].key) == 0) return true;
    for (size_t k = 0; k < sizeof int_columns / sizeof int_columns[0]; k++)
        if (strcmp(key, int_columns[k].key) == 0) return true;
    for (size_t k = 0; k < sizeof other / sizeof other[0]; k++)
        if (strcmp(key, other[k]) == 0) return true;
    return false;
}

/* The columns of a file that no reader knows, gathered over its rows (each once). */
typedef struct unknown_cols {
    char names[480]; /* "\"a\", \"b\"" */
    int n, shown;
} unknown_cols;

static void note_unknown(const row *r, unknown_cols *u)
{
    for (int i = 0; i < r->n; i++) {
        const char *k = r->keys[i];
        if (!k || known_column(k)) continue;
        char q[80];
        snprintf(q, sizeof q, "\"%.70s\"", k);
        if (strstr(u->names, q)) continue;
        u->n++;
        size_t o = strlen(u->names);
        if (o + strlen(q) + 3 < sizeof u->names - 16) {
            snprintf(u->names + o, sizeof u->names - o, "%s%s", o ? ", " : "", q);
            u->shown++;
        }
    }
}

/* The note for note/len (when note is not NULL): "" or "PATH: unknown columns ... (ignored)". */
static void unknown_note(const unknown_cols *u, const char *path, char *note, size_t len)
{
    if (!note || !len) return;
    note[0] = '\0';
    if (u->n == 0) return;
    char more[32] = "";
    if (u->n > u->shown) snprintf(more, sizeof more, " and %d more", u->n - u->shown);
    snprintf(note, len, "%s: unknown column%s %s%s (ignored; tests/validation/README.md lists the columns)",
        path, u->n == 1 ? "" : "s", u->names, more);
}

/* The training-flag and cluster-variant columns of row r into x->flags / x->variant, each
 * through its flag row (training_flag_set, hwvariant_set): a switch's column is a boolean, on
 * when true. Fails with ZS_ERR_INPUT naming where, the column and the flag's message. */
static int flag_columns(const row *r, run_record *x, const char *where, zs_error *err)
{
    char col[64];
    zs_error fe = {0};
    training_init(&x->flags);
    for (int k = 0; k < TRAINING_FLAG_COUNT; k++) {
        const flag_desc *d = &training_flags[k];
        if (!d->name) continue;
        flag_column(d->name, col, sizeof col);
        const char *v = row_get(r, col);
        if (!v || legacy_column(col) || flag_skipped(col)) continue;
        if (d->kind == FLAG_ON || d->kind == FLAG_OFF) {
            int on;
            if (get_bool(r, col, 0, &on, where, err)) return err->code;
            if (!on) continue;
        }
        if (training_flag_set(&x->flags, d, v, &fe))
            return zs_fail(err, ZS_ERR_INPUT, "%s: column \"%s\": %s", where, col, fe.msg);
        x->flag_given |= (uint64_t)1 << k;
    }
    for (int k = 0; hwvariant_flags[k]; k++) {
        flag_column(hwvariant_flags[k], col, sizeof col);
        const char *v = row_get(r, col);
        if (v && hwvariant_set(&x->variant, hwvariant_flags[k], v, &fe))
            return zs_fail(err, ZS_ERR_INPUT, "%s: column \"%s\": %s", where, col, fe.msg);
    }
    return ZS_OK;
}

static int from_row(const row *r, const char *path, const char *base, int line, run_record *x, zs_error *err)
{
    char where[512];
    snprintf(where, sizeof where, "%s:%d", path, line);
    memset(x, 0, sizeof *x);
    x->line = line;
    for (size_t k = 0; k < sizeof text_columns / sizeof text_columns[0]; k++) {
        const char *v = row_get(r, text_columns[k].key);
        if (v && !text_columns[k].clip && strlen(v) >= text_columns[k].len)
            return zs_fail(err, ZS_ERR_INPUT, "%s: column \"%s\": %zu characters, at most %zu", where,
                text_columns[k].key, strlen(v), text_columns[k].len - 1);
        snprintf((char *)x + text_columns[k].offset, text_columns[k].len, "%s", v ? v : text_columns[k].def);
    }
    x->step_overhead = -1;
    if (!x->model[0]) return zs_fail(err, ZS_ERR_INPUT, "%s: missing \"model\"", where);
    if (!x->hardware[0]) return zs_fail(err, ZS_ERR_INPUT, "%s: missing \"hardware\"", where);
    resolve_near(x->model, sizeof x->model, base);
    resolve_near(x->hardware, sizeof x->hardware, base);
    for (size_t k = 0; k < sizeof int_columns / sizeof int_columns[0]; k++)
        if (get_int(r, int_columns[k].key, int_columns[k].def, int_columns[k].min, int_columns[k].max,
                (int64_t *)((char *)x + int_columns[k].offset), where, err))
            return err->code;
    int sp, qw, qg, fa;
    if (get_bool(r, "sequence_parallel", 0, &sp, where, err) ||
        get_bool(r, "quantized_weights", 0, &qw, where, err) ||
        get_bool(r, "quantized_gradients", 0, &qg, where, err) ||
        get_bool(r, "flash_attention", 1, &fa, where, err) || /* absent: runs since FlashAttention */
        get_bool(r, "overlap_comm", -1, &x->overlap_comm, where, err))
        return err->code;
    x->sequence_parallel = sp;
    x->quantized_weights = qw;
    x->quantized_gradients = qg;
    x->flash_attention = fa;
    if (flag_columns(r, x, where, err)) return err->code;
    if (get_num(r, "measured_step_seconds", &x->step_seconds, where, err) ||
        get_num(r, "measured_tokens_per_second", &x->tokens_per_second, where, err) ||
        get_num(r, "measured_tflops_per_gpu", &x->tflops_per_gpu, where, err) ||
        get_frac(r, "measured_mfu", &x->mfu, where, err) ||
        get_frac(r, "measured_hfu", &x->hfu, where, err) ||
        get_num(r, "peak_memory_bytes", &x->peak_memory_bytes, where, err))
        return err->code;
    /* a throughput so small that global_batch x seq_len / it overflows leaves no step time */
    if (!isfinite(runs_measured_step(x)))
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: column \"measured_tokens_per_second\": %g is too small (the step time overflows)", where,
            x->tokens_per_second);
    if (runs_measured_step(x) <= 0 && x->tflops_per_gpu <= 0 && x->mfu <= 0 && x->hfu <= 0 &&
        x->peak_memory_bytes <= 0)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: no measurement (measured_step_seconds, measured_tokens_per_second, measured_tflops_per_gpu, "
            "measured_mfu, measured_hfu or peak_memory_bytes)",
            where);
    return ZS_OK;
}

/* The next CSV record of *pp (RFC 4180: quoted fields may hold commas, doubled quotes and
 * line breaks; CRLF or LF ends a record), its fields unquoted in place into *fv (grown as
 * needed). *line counts the physical lines passed. Returns the field count, 0 at the end of
 * the text, -1 when out of memory. */
static int csv_record(char **pp, int *line, char ***fv, int *cap)
{
    char *p = *pp;
    if (!*p) return 0;
    int n = 0;
    for (;;) {
        if (n == *cap) {
            int nc = *cap ? 2 * *cap : 32;
            char **g = realloc(*fv, (size_t)nc * sizeof *g);
            if (!g) return -1;
            *fv = g;
            *cap = nc;
        }
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else if (*p == '\0')
                    break;
                else {
                    if (*p == '\n') (*line)++;
                    *out++ = *p++;
                }
            }
            while (*p && *p != ',' && *p != '\n') p++; /* text after the closing quote: dropped */
        } else {
            while (*p && *p != ',' && *p != '\n') *out++ = *p++;
            if (out > start && out[-1] == '\r') out--;
        }
        char sep = *p; /* read before the terminator below may overwrite it */
        *out = '\0';
        (*fv)[n++] = start;
        if (sep == ',') {
            p++;
            continue;
        }
        if (sep == '\n') {
            p++;
            (*line)++;
        }
        break;
    }
    *pp = p;
    return n;
}

static int load_csv(const char *path, const char *base, char *text, run_record **out, int *count,
    unknown_cols *u, zs_error *err)
{
    char **hdr = NULL, **vals = NULL, *p = text;
    int hcap = 0, vcap = 0, nh = 0, line = 1, n = 0, cap = 0, rc = ZS_OK;
    run_record *v = NULL;
    row r = {0};
    for (;;) {
        int start = line;
        if (*p == '#') { /* a comment line */
            p += strcspn(p, "\n");
            if (*p) {
                p++;
                line++;
            }
            continue;
        }
        int nf = csv_record(&p, &line, nh ? &vals : &hdr, nh ? &vcap : &hcap);
        if (nf == 0) break;
        if (nf < 0) {
            rc = zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", path);
            goto out;
        }
        char **f = nh ? vals : hdr;
        if (nf == 1 && f[0][0] == '\0') continue; /* a blank line */
        if (nh == 0) {
            nh = nf;
            static const char *const need[] = {"model", "hardware", "gpus", "global_batch", "seq_len"};
            for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
                bool found = false;
                for (int i = 0; i < nh; i++) found |= strcmp(hdr[i], need[k]) == 0;
                if (!found) {
                    rc =
                        zs_fail(err, ZS_ERR_INPUT, "%s:%d: header lacks column \"%s\"", path, start, need[k]);
                    goto out;
                }
            }
            r.keys = hdr;
            r.vals = calloc((size_t)nh, sizeof *r.vals);
            if (!r.vals) {
                rc = zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", path);
                goto out;
            }
            r.n = nh;
            note_unknown(&r, u);
            continue;
        }
        /* every record has the header's fields (extra empty ones, as spreadsheets write, are fine) */
        int used = nf;
        while (used > nh && vals[used - 1][0] == '\0') used--;
        if (used != nh) {
            rc = zs_fail(err, ZS_ERR_INPUT, "%s:%d: %d fields where the header has %d (%s)", path, start,
                used, nh,
                used < nh ? "a field missing?" : "an unquoted comma?");
            goto out;
        }
        for (int i = 0; i < nh; i++) r.vals[i] = vals[i];
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            run_record *nvp = realloc(v, (size_t)cap * sizeof *v);
            if (!nvp) {
                rc = zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", path);
                goto out;
            }
            v = nvp;
        }
        if ((rc = from_row(&r, path, base, start, &v[n], err))) goto out;
        n++;
    }
    if (n == 0)
        rc = zs_fail(err, ZS_ERR_INPUT, "%s: no runs (expected a header line and at least one row)", path);
out:
    free(hdr);
    free(vals);
    free(r.vals);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *count = n;
    return ZS_OK;
}

/* One JSON run object as a row: every key, numbers and booleans as text in num (room for
 * n entries of 32 bytes). */
static void json_row(const cJSON *o, row *r, char (*num)[32])
{
    r->n = 0;
    for (const cJSON *f = o->child; f; f = f->next) {
        r->keys[r->n] = f->string;
        if (cJSON_IsString(f))
            r->vals[r->n] = f->valuestring;
        else if (cJSON_IsNumber(f)) {
            snprintf(num[r->n], sizeof num[r->n], "%.17g", f->valuedouble);
            r->vals[r->n] = num[r->n];
        } else if (cJSON_IsBool(f)) {
            snprintf(num[r->n], sizeof num[r->n], "%s", cJSON_IsTrue(f) ? "true" : "false");
            r->vals[r->n] = num[r->n];
        } else
            r->vals[r->n] = NULL;
        r->n++;
    }
}

static int load_json(const char *path, const char *base, const char *text, run_record **out, int *count,
    unknown_cols *u, zs_error *err)
{
    cJSON *j = cJSON_Parse(text);
    if (!j) return zs_fail(err, ZS_ERR_INPUT, "%s: invalid JSON", path);
    json_last_key_wins(j); /* duplicate keys: the last wins, as in Python */
    cJSON *arr = cJSON_IsArray(j) ? j : cJSON_GetObjectItemCaseSensitive(j, "runs");
    int n = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr) || n == 0) {
        cJSON_Delete(j);
        return zs_fail(
            err, ZS_ERR_INPUT, "%s: expected a non-empty JSON array of runs (or {\"runs\": [...]})", path);
    }
    int keys = 1, i = 0, rc = ZS_OK;
    for (cJSON *o = arr->child; o; o = o->next) {
        int k = cJSON_IsObject(o) ? cJSON_GetArraySize(o) : 0;
        if (k > keys) keys = k;
    }
    run_record *v = calloc((size_t)n, sizeof *v);
    row r = {calloc((size_t)keys, sizeof *r.keys), calloc((size_t)keys, sizeof *r.vals), 0};
    char(*num)[32] = calloc((size_t)keys, sizeof *num);
    if (!v || !r.keys || !r.vals || !num) {
        rc = zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", path);
        goto out;
    }
    for (cJSON *o = arr->child; o; o = o->next, i++) {
        if (!cJSON_IsObject(o)) {
            rc = zs_fail(err, ZS_ERR_INPUT, "%s: run %d is not an object", path, i + 1);
            goto out;
        }
        json_row(o, &r, num);
        note_unknown(&r, u);
        if ((rc = from_row(&r, path, base, i + 1, &v[i], err))) goto out;
    }
out:
    free(r.keys);
    free(r.vals);
    free(num);
    cJSON_Delete(j);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *count = n;
    return ZS_OK;
}

/* Dispatch on the first non-blank character after a UTF-8 byte-order mark (spreadsheets
 * write one); text is modified (the CSV reader splits it). */
static int load_text(char *text, const char *origin, const char *base, run_record **out, int *n, char *note,
    size_t note_len, zs_error *err)
{
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3;
    size_t k = strspn(text, " \t\r\n");
    unknown_cols u = {.n = 0};
    int rc = (text[k] == '[' || text[k] == '{') ? load_json(origin, base, text, out, n, &u, err)
                                                : load_csv(origin, base, text, out, n, &u, err);
    unknown_note(&u, origin, note, rc ? 0 : note_len);
    return rc;
}

int runs_load_text(const char *text, const char *origin, run_record **out, int *n, zs_error *err)
{
    if (!origin) origin = "(runs)";
    char *copy = strdup(text);
    if (!copy) return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", origin);
    int rc = load_text(copy, origin, NULL, out, n, NULL, 0, err);
    free(copy);
    return rc;
}

int runs_load(const char *path, run_record **out, int *n, zs_error *err)
{
    return runs_load_noted(path, out, n, NULL, 0, err);
}

int runs_load_noted(const char *path, run_record **out, int *n, char *note, size_t note_len, zs_error *err)
{
    char *text;
    size_t len;
    if (note && note_len) note[0] = '\0';
    if (file_read_text(path, &text, &len, err)) return err->code;
    int rc = load_text(text, path, path, out, n, note, note_len, err);
    free(text);
    return rc;
}

double runs_measured_step(const run_record *r)
{
    if (r->step_seconds > 0) return r->step_seconds;
    if (r->tokens_per_second > 0) return (double)r->global_batch * (double)r->seq_len / r->tokens_per_second;
    return 0;
}
