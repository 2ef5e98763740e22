/* vet.c -- a served request made safe: no file names, bounded searches, uploads as temp files. */
#include "serve/vet.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "io/yamlutil.h"

/* Settings that name a file or folder on the machine that runs the command (setup.c's
 * --weights, --config, --deepspeed; report's --output; validate's and plot's runs files and
 * positional arguments). Uploads take the place of config and deepspeed. */
static const char *const file_keys[] = {
    "args", "weights", "config", "deepspeed", "output", "o", "runs", NULL};

/* Each upload: its key in "files", the setting it becomes and the file name it is written as. */
static const struct {
    const char *key, *file;
} uploads[] = {{"model", "config.json"}, {"deepspeed", "ds_config.json"}, {"config", "config.yaml"}};
enum { N_UPLOADS = sizeof uploads / sizeof uploads[0] };

/* A catalog name as the catalogs spell them: letters, digits, '.', '_', '-', not starting with
 * '.', no '/' (a path or a Hub id that would download), not ending in ".json" (a path). */
static bool catalog_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 128 || s[0] == '.' || s[0] == '-') return false;
    if (n > 5 && strcmp(s + n - 5, ".json") == 0) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
                *p == '_' || *p == '-'))
            return false;
    return true;
}

/* model or hardware: a catalog name, or a list of them (sweep: a comma list or an array). */
static int vet_names(const char *key, const cJSON *v, char *msg, size_t mlen)
{
    const cJSON *one = v;
    if (cJSON_IsArray(v)) one = v->child;
    for (; one; one = cJSON_IsArray(v) ? one->next : NULL) {
        if (!cJSON_IsString(one)) break;
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", one->valuestring);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            if (!catalog_name(tok)) {
                snprintf(msg, mlen,
                    "--%s %.64s: a served request names a catalog entry (letters, digits, . _ -), not a file;"
                    " upload a config in \"files\"",
                    key, tok);
                return ZS_ERR_USAGE;
            }
        if (!cJSON_IsArray(v)) return ZS_OK;
    }
    if (one) {
        snprintf(msg, mlen, "--%s: expected a catalog name", key);
        return ZS_ERR_USAGE;
    }
    return ZS_OK;
}

/* A number setting bounded at most: a larger or non-numeric value is refused. */
static int vet_bound(const char *key, const cJSON *v, double most, char *msg, size_t mlen)
{
    double x = cJSON_IsNumber(v) ? v->valuedouble
        : cJSON_IsString(v)      ? strtod(v->valuestring, NULL)
                                 : most + 1;
    if (x <= most) return ZS_OK;
    snprintf(
        msg, mlen, "--%s: a served request searches at most %.0f (run the command line for more)", key, most);
    return ZS_ERR_USAGE;
}

/* The request's settings, one by one (keys as the flags they become: '_' read as '-'). */
static int vet_settings(cJSON *req, const char *command, char *msg, size_t mlen)
{
    for (cJSON *it = req->child; it; it = it->next) {
        char key[128];
        snprintf(key, sizeof key, "%s", it->string);
        for (char *p = key; *p; p++)
            if (*p == '_') *p = '-';
        if (strcmp(key, "command") == 0 || strcmp(key, "files") == 0 || cJSON_IsNull(it) || cJSON_IsFalse(it))
            continue;
        for (int k = 0; file_keys[k]; k++)
            if (strcmp(key, file_keys[k]) == 0) {
                snprintf(msg, mlen, "\"%s\": a served request names no file on the server%s", it->string,
                    strcmp(key, "config") == 0 || strcmp(key, "deepspeed") == 0
                        ? "; send its contents in \"files\""
                        : "");
                return ZS_ERR_USAGE;
            }
        int rc = ZS_OK;
        if (strcmp(key, "model") == 0 || strcmp(key, "hardware") == 0) rc = vet_names(key, it, msg, mlen);
        if (strcmp(key, "max-gpus") == 0) rc = vet_bound(key, it, SERVE_MAX_GPUS, msg, mlen);
        if (strcmp(key, "max-rows") == 0) rc = vet_bound(key, it, SERVE_MAX_ROWS, msg, mlen);
        if (rc) return rc;
    }
    /* The searches' defaults stay inside the bounds: a sweep says its row limit outright. */
    if (strcmp(command, "sweep") == 0 && !cJSON_GetObjectItemCaseSensitive(req, "max-rows") &&
        !cJSON_GetObjectItemCaseSensitive(req, "max_rows"))
        cJSON_AddNumberToObject(req, "max-rows", SERVE_MAX_ROWS);
    return ZS_OK;
}

/* An uploaded launch YAML may name files: a ds_config to follow (Axolotl's deepspeed:,
 * accelerate's deepspeed_config.deepspeed_config_file), of which only the one uploaded beside it
 * (ds_config.json) may be named, and the model (base_model, model_name_or_path), which must be
 * a catalog name unless the request names the model itself (its flag wins). */
static int vet_yaml_paths(const char *text, bool have_ds, bool have_model, char *msg, size_t mlen)
{
    cJSON *root = NULL;
    zs_error err = {0};
    if (yaml_parse_object(text, strlen(text), "config.yaml", &root, &err))
        return ZS_OK; /* the CLI says why */
    const cJSON *dc = cJSON_GetObjectItemCaseSensitive(root, "deepspeed_config");
    const char *keys[] = {
        "deepspeed", "deepspeed_config.deepspeed_config_file", "base_model", "model_name_or_path"};
    const cJSON *v[] = {cJSON_GetObjectItemCaseSensitive(root, "deepspeed"),
        cJSON_IsObject(dc) ? cJSON_GetObjectItemCaseSensitive(dc, "deepspeed_config_file") : NULL,
        cJSON_GetObjectItemCaseSensitive(root, "base_model"),
        cJSON_GetObjectItemCaseSensitive(root, "model_name_or_path")};
    int rc = ZS_OK;
    for (int i = 0; i < 4 && !rc; i++) {
        if (!cJSON_IsString(v[i]) || !v[i]->valuestring[0])
            continue; /* else the reader says what it expected */
        const char *p = v[i]->valuestring;
        bool ok = i < 2 ? have_ds && (strcmp(p, "ds_config.json") == 0 || strcmp(p, "./ds_config.json") == 0)
                        : have_model || catalog_name(p);
        if (ok) continue;
        snprintf(msg, mlen,
            i < 2 ? "config.yaml: %s: a served request opens no file the config names; upload the ds_config "
                    "beside it and name it ds_config.json"
                  : "config.yaml: %s: a served request reads no model the config names by path or Hub id; "
                    "choose a catalog model or upload its config.json",
            keys[i]);
        rc = ZS_ERR_USAGE;
    }
    cJSON_Delete(root);
    return rc;
}

static int write_file(const char *path, const char *text, char *msg, size_t mlen)
{
    FILE *f = fopen(path, "wx");
    size_t n = strlen(text);
    bool ok = f && fwrite(text, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) snprintf(msg, mlen, "cannot write a temporary file for the upload");
    return ok ? ZS_OK : ZS_ERR_IO;
}

/* The uploads in "files": each written as its file in a new directory, its setting naming it. */
static int vet_files(cJSON *req, const char *base, serve_upload *up, char *msg, size_t mlen)
{
    cJSON *files = cJSON_GetObjectItemCaseSensitive(req, "files");
    if (!files || cJSON_IsNull(files)) return ZS_OK;
    const char *text[N_UPLOADS] = {NULL};
    for (const cJSON *f = cJSON_IsObject(files) ? files->child : NULL; f; f = f->next) {
        int k = 0;
        while (k < N_UPLOADS && strcmp(f->string, uploads[k].key) != 0) k++;
        if (k == N_UPLOADS || !cJSON_IsString(f)) {
            snprintf(msg, mlen,
                "\"files\": \"%.64s\": expected model, deepspeed or config, each a file's text", f->string);
            return ZS_ERR_USAGE;
        }
        text[k] = f->valuestring;
    }
    if (!cJSON_IsObject(files)) {
        snprintf(msg, mlen, "\"files\": expected an object of uploaded contents");
        return ZS_ERR_USAGE;
    }
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(req, "model");
    bool have_model = text[0] || (model && !cJSON_IsNull(model) && !cJSON_IsFalse(model));
    if (text[2] && vet_yaml_paths(text[2], text[1] != NULL, have_model, msg, mlen)) return ZS_ERR_USAGE;
    if (snprintf(up->dir, sizeof up->dir, "%s/upload-XXXXXX", base) >= (int)sizeof up->dir ||
        !mkdtemp(up->dir)) {
        up->dir[0] = '\0';
        snprintf(msg, mlen, "cannot make a temporary directory for the upload");
        return ZS_ERR_IO;
    }
    for (int k = 0; k < N_UPLOADS; k++) {
        if (!text[k]) continue;
        char path[640];
        snprintf(path, sizeof path, "%s/%s", up->dir, uploads[k].file);
        int rc = write_file(path, text[k], msg, mlen);
        if (rc) return rc;
        cJSON_DeleteItemFromObjectCaseSensitive(req, uploads[k].key);
        if (!cJSON_AddStringToObject(req, uploads[k].key, path)) {
            snprintf(msg, mlen, "out of memory");
            return ZS_ERR_NOMEM;
        }
    }
    cJSON_DeleteItemFromObjectCaseSensitive(req, "files");
    return ZS_OK;
}

int serve_vet(const char *body, size_t len, const char *base, char **json, char *command, size_t clen,
    serve_upload *up, char *msg, size_t mlen)
{
    *json = NULL;
    up->dir[0] = '\0';
    command[0] = '\0';
    cJSON *req = cJSON_ParseWithLength(body, len);
    int rc = ZS_OK;
    if (!cJSON_IsObject(req)) {
        snprintf(msg, mlen, "the request is not a JSON object");
        rc = ZS_ERR_USAGE;
    }
    const cJSON *name = rc ? NULL : cJSON_GetObjectItemCaseSensitive(req, "command");
    if (cJSON_IsString(name)) snprintf(command, clen, "%s", name->valuestring);
    if (!rc && strcmp(command, "validate") == 0) {
        snprintf(msg, mlen,
            "\"command\": validate reads runs files on the server; serve answers estimate, "
            "compare, plan, sweep, report and list");
        rc = ZS_ERR_USAGE;
    }
    if (!rc) rc = vet_settings(req, command, msg, mlen);
    if (!rc) rc = vet_files(req, base, up, msg, mlen);
    if (!rc && !(*json = cJSON_PrintUnformatted(req))) {
        snprintf(msg, mlen, "out of memory");
        rc = ZS_ERR_NOMEM;
    }
    cJSON_Delete(req);
    return rc;
}

void serve_vet_done(serve_upload *up)
{
    if (!up->dir[0]) return;
    for (int k = 0; k < N_UPLOADS; k++) {
        char path[640];
        snprintf(path, sizeof path, "%s/%s", up->dir, uploads[k].file);
        unlink(path);
    }
    rmdir(up->dir);
    up->dir[0] = '\0';
}

void serve_vet_unpath(const char *dir, char *text)
{
    if (!dir[0] || !text) return;
    size_t n = strlen(dir);
    /* strstr jumps from one occurrence to the next (a compare answer is tens of kB with none
     * or a few): a byte-by-byte strncmp was a twentieth of a computed compare's time. */
    char *w = text;
    const char *r = text;
    for (const char *hit; (hit = strstr(r, dir)) != NULL;) {
        size_t keep = (size_t)(hit - r) + (hit[n] == '/' ? 0 : 1);
        memmove(w, r, keep);
        w += keep;
        r = hit[n] == '/' ? hit + n + 1 : hit + 1;
    }
    memmove(w, r, strlen(r) + 1);
}
