/* zerosim.c -- the library's request API: a JSON request into the argv the command line would
 * parse, the command's own code run with its output and messages in memory streams. */
#include "api/zerosim.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/response.h"
#include "cmd/commands.h"
#include "io/catalog.h"

#define ZS_EXPORT __attribute__((visibility("default")))

enum { MAX_ARGS = 256 };

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
} command;

/* The commands a request may name; list is answered here (the command line's is a table). */
static const command commands[] = {
    {"estimate", cmd_estimate},
    {"compare", cmd_compare},
    {"plan", cmd_plan},
    {"sweep", cmd_sweep},
    {"validate", cmd_validate},
    {"report", cmd_report}, /* answers the HTML page itself, not JSON */
    {"list", NULL},
};

/* The arguments being built: each one a string of its own, freed together. */
typedef struct args {
    char *v[MAX_ARGS + 1];
    int n;
} args;

static int push(args *a, const char *s, char *msg, size_t len)
{
    if (a->n >= MAX_ARGS) {
        snprintf(msg, len, "the request has more than %d settings", MAX_ARGS);
        return ZS_ERR_USAGE;
    }
    if (!(a->v[a->n] = strdup(s))) {
        snprintf(msg, len, "out of memory");
        return ZS_ERR_NOMEM;
    }
    a->n++;
    return ZS_OK;
}

static void args_free(args *a)
{
    for (int i = 0; i < a->n; i++) free(a->v[i]);
    a->n = 0;
}

/* A scalar as the flag's value: whole numbers without a fraction ("8", not "8.000000"). */
static int scalar_text(const cJSON *j, char *out, size_t len)
{
    if (cJSON_IsString(j)) return snprintf(out, len, "%s", j->valuestring) < (int)len ? 0 : -1;
    if (!cJSON_IsNumber(j)) return -1;
    double x = j->valuedouble;
    if (x == floor(x) && fabs(x) < 9007199254740992.0)
        snprintf(out, len, "%.0f", x);
    else
        snprintf(out, len, "%.17g", x);
    return 0;
}

/* One setting's value: a scalar, or a list joined with commas. */
static int value_text(const cJSON *j, const char *key, char *out, size_t len, char *msg, size_t mlen)
{
    if (!cJSON_IsArray(j)) {
        if (scalar_text(j, out, len) == 0) return ZS_OK;
        snprintf(msg, mlen, "--%s: expected a string, number, true/false or a list", key);
        return ZS_ERR_USAGE;
    }
    size_t at = 0;
    out[0] = '\0';
    const cJSON *e;
    cJSON_ArrayForEach(e, j)
    {
        char one[512];
        if (scalar_text(e, one, sizeof one) || at + strlen(one) + 2 > len) {
            snprintf(msg, mlen, "--%s: expected a list of strings or numbers", key);
            return ZS_ERR_USAGE;
        }
        at += (size_t)snprintf(out + at, len - at, "%s%s", at ? "," : "", one);
    }
    return ZS_OK;
}

/* The request's settings after argv[0] (the command): --key VALUE, --key for true, the
 * positional "args", and --format json last (report: -o -, its page into the answer). */
static int request_args(const cJSON *req, args *a, bool page, char *msg, size_t mlen)
{
    const cJSON *item;
    int rc = ZS_OK;
    cJSON_ArrayForEach(item, req)
    {
        const char *key = item->string;
        if (strcmp(key, "command") == 0 || cJSON_IsNull(item) || cJSON_IsFalse(item)) continue;
        char flag[128], value[8192];
        if (strlen(key) > sizeof flag - 3 || strcmp(key, "help") == 0 || strchr(key, '=') || key[0] == '-') {
            snprintf(msg, mlen, "\"%.64s\" is not a setting", key);
            return ZS_ERR_USAGE;
        }
        if (strcmp(key, "args") == 0) {
            const cJSON *e;
            if (!cJSON_IsArray(item)) item = NULL;
            cJSON_ArrayForEach(e, item)
            {
                if (scalar_text(e, value, sizeof value)) item = NULL;
                if (!item || (rc = push(a, value, msg, mlen))) break;
            }
            if (!item) {
                snprintf(msg, mlen, "\"args\": expected a list of strings");
                return ZS_ERR_USAGE;
            }
            if (rc) return rc;
            continue;
        }
        snprintf(flag, sizeof flag, "--%s", key);
        for (char *p = flag + 2; *p; p++)
            if (*p == '_') *p = '-';
        if (page && (strcmp(flag, "--output") == 0 || strcmp(flag, "--o") == 0)) {
            snprintf(msg, mlen, "report: the library answers with the page; \"output\" is not a setting");
            return ZS_ERR_USAGE;
        }
        if (strcmp(flag, "--format") == 0) {
            if (cJSON_IsString(item) && strcmp(item->valuestring, "json") == 0) continue;
            snprintf(msg, mlen, "--format: the library answers in json only");
            return ZS_ERR_USAGE;
        }
        if ((rc = push(a, flag, msg, mlen))) return rc;
        if (cJSON_IsTrue(item)) continue;
        if ((rc = value_text(item, flag + 2, value, sizeof value, msg, mlen))) return rc;
        if ((rc = push(a, value, msg, mlen))) return rc;
    }
    if ((rc = push(a, page ? "-o" : "--format", msg, mlen))) return rc;
    return push(a, page ? "-" : "json", msg, mlen);
}

/* list: the catalog's names as {"models": [...]} or {"hardware": [...]}. */
static int list_catalog(const cJSON *req, FILE *out, char *msg, size_t mlen)
{
    const cJSON *what = cJSON_GetObjectItemCaseSensitive(req, "what");
    const char *kind = cJSON_IsString(what) ? what->valuestring : "";
    if (strcmp(kind, "models") != 0 && strcmp(kind, "hardware") != 0) {
        snprintf(msg, mlen, "list: \"what\": expected \"models\" or \"hardware\"");
        return ZS_ERR_USAGE;
    }
    char **names = NULL;
    zs_error err = {0};
    if (catalog_list(kind, &names, &err)) {
        snprintf(msg, mlen, "%s", err.msg);
        return err.code;
    }
    cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, kind);
    for (char **p = names; arr && *p; p++) cJSON_AddItemToArray(arr, cJSON_CreateString(*p));
    catalog_free(names);
    char *text = arr ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text) {
        snprintf(msg, mlen, "out of memory");
        return ZS_ERR_NOMEM;
    }
    fprintf(out, "%s\n", text);
    cJSON_free(text);
    return ZS_OK;
}

/* Run the request's command with its streams captured: *out the data, msg the error. */
static int run(const cJSON *req, char **out, size_t *outlen, char *msg, size_t mlen)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(req, "command");
    const command *c = NULL;
    for (size_t i = 0; cJSON_IsString(name) && i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name->valuestring, commands[i].name) == 0) c = &commands[i];
    if (!c) {
        snprintf(msg, mlen, "\"command\": expected estimate, compare, plan, sweep, validate, report or list");
        return ZS_ERR_USAGE;
    }
    char *errtext = NULL;
    size_t errlen = 0;
    FILE *o = open_memstream(out, outlen), *e = o ? open_memstream(&errtext, &errlen) : NULL;
    if (!e) {
        if (o) fclose(o);
        snprintf(msg, mlen, "out of memory");
        return ZS_ERR_NOMEM;
    }
    args a = {.n = 0};
    int rc = push(&a, c->name, msg, mlen);
    if (!rc && !c->fn) rc = list_catalog(req, o, msg, mlen);
    if (!rc && c->fn && !(rc = request_args(req, &a, c->fn == cmd_report, msg, mlen))) {
        cmd_set_streams(o, e);
        a.v[a.n] = NULL;
        rc = c->fn(a.n, a.v);
        int code;
        const char *last = cmd_last_error(&code);
        if (rc >= ZS_ERR_USAGE || (rc == ZS_ERR_NOFIT && ftell(o) == 0)) {
            /* the command's own message; else the last line it wrote (a write error) */
            fflush(e);
            if (code)
                snprintf(msg, mlen, "%s", last);
            else
                snprintf(
                    msg, mlen, "%.*s", (int)strcspn(errtext ? errtext : "", "\n"), errtext ? errtext : "");
        }
        cmd_set_streams(NULL, NULL);
    }
    args_free(&a);
    if (ferror(o) && rc < ZS_ERR_USAGE) {
        snprintf(msg, mlen, "cannot write the output");
        rc = ZS_ERR_IO;
    }
    fclose(o);
    fclose(e);
    free(errtext);
    return rc;
}

ZS_EXPORT int zs_call(const char *request_json, char **response_json)
{
    char msg[1024] = "";
    char *out = NULL;
    size_t outlen = 0;
    int rc;
    *response_json = NULL;
    cJSON *req = request_json ? cJSON_Parse(request_json) : NULL;
    if (!cJSON_IsObject(req)) {
        snprintf(msg, sizeof msg, "the request is not a JSON object");
        rc = ZS_ERR_USAGE;
    } else
        rc = run(req, &out, &outlen, msg, sizeof msg);
    cJSON_Delete(req);
    if (rc >= ZS_ERR_USAGE || (rc == ZS_ERR_NOFIT && outlen == 0)) {
        free(out);
        out = api_error_json(rc, msg);
    }
    *response_json = out;
    return out ? rc : ZS_ERR_NOMEM;
}

ZS_EXPORT void zs_free(char *response_json)
{
    free(response_json);
}

ZS_EXPORT const char *zs_version(void)
{
    return ZS_VERSION;
}

ZS_EXPORT int zs_api_version(void)
{
    return ZS_API_VERSION;
}
