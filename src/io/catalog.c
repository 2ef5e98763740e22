/* catalog.c -- catalog directories: $ZEROSIM_DATA, next to the binary, or the working directory. */
#define _DEFAULT_SOURCE
#include "io/catalog.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int catalog_dir(const char *kind, char *out, size_t len, zs_error *err)
{
    char exe[4096];
    const char *env = getenv("ZEROSIM_DATA");
    if (env && *env) {
        snprintf(out, len, "%s/%s", env, kind);
        if (is_dir(out)) return ZS_OK;
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, len, "%s/%s", exe, kind);
            if (is_dir(out)) return ZS_OK;
        }
    }
    snprintf(out, len, "%s", kind);
    if (is_dir(out)) return ZS_OK;
    return zs_fail(
        err, ZS_ERR_INPUT, "cannot find the %s catalog (set ZEROSIM_DATA to the zerosim directory)", kind);
}

/* A name as the loose match compares it: lower case, without separators (- _ . space) and
 * without what precedes its last '/' (an organisation: "meta-llama/Meta-Llama-3-8B"). Writes
 * at most len - 1 characters into out. */
static void normalise(const char *name, char *out, size_t len)
{
    const char *slash = strrchr(name, '/');
    if (slash && slash[1]) name = slash + 1;
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < len; p++) {
        if (*p == '-' || *p == '_' || *p == '.' || *p == ' ') continue;
        out[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    }
    out[n] = '\0';
}

/* Edit distance (insert, delete, substitute), for names of up to 63 characters. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 99;
    int row[64];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j], c = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < c) c = up + 1;
            if (row[j - 1] + 1 < c) c = row[j - 1] + 1;
            diag = up;
            row[j] = c;
        }
    }
    return row[lb];
}

/* The repository name in a catalog file's "source" ("https://huggingface.co/ORG/REPO/blob/...")
 * or "_name_or_path", normalised into out; "" when it has neither. Reads only the text. */
static void source_key(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    static const char *const keys[] = {"\"_name_or_path\"", "\"source\""};
    for (int k = 0; k < 2 && !out[0]; k++) {
        char *p = strstr(buf, keys[k]), *q;
        if (!p || !(p = strchr(p + strlen(keys[k]), '"')) || !(q = strchr(++p, '"'))) continue;
        *q = '\0';
        char *hub = strstr(p, "huggingface.co/");
        if (hub) {
            p = hub + strlen("huggingface.co/");
            char *blob = strstr(p, "/blob/");
            if (blob) *blob = '\0';
        }
        normalise(p, out, len);
    }
}

/* Append "a", ", b" or " or c" to a list of names in out (len bytes). */
static void append_name(char *out, size_t len, int k, int n, const char *name)
{
    size_t at = strlen(out);
    snprintf(out + at, len - at, "%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ", name);
}

/* name is no file and no catalog entry: the entry it names loosely (normalise, compared with
 * each entry's name and source repository), written to `used` when exactly one matches; else
 * a ZS_ERR_INPUT error with up to 3 suggestions: the entries whose normalised name begins with
 * the name's, else the nearest by edit distance. */
static int resolve_loose(
    const char *kind, const char *dir, const char *name, char *used, size_t ulen, zs_error *err)
{
    char **names, want[64], key[64], path[4400], hint[256] = "";
    const char *what = strcmp(kind, "models") == 0 ? "model" : "hardware profile";
    normalise(name, want, sizeof want);
    size_t wl = strlen(want);
    if (catalog_list(kind, &names, err)) return err->code;
    int matches = 0, best[3] = {99, 99, 99}, pick[3] = {-1, -1, -1}, prefixed = 0;
    for (int i = 0; names[i]; i++) {
        normalise(names[i], key, sizeof key);
        int d = distance(want, key);
        bool prefix = wl >= 2 && strncmp(key, want, wl) == 0;
        if (strcmp(kind, "models") == 0 && d) {
            char src[64] = "";
            if (snprintf(path, sizeof path, "%s/%s.json", dir, names[i]) < (int)sizeof path)
                source_key(path, src, sizeof src);
            if (src[0] && strcmp(src, want) == 0) d = 0;
        }
        if (d == 0 && matches++ == 0) snprintf(used, ulen, "%s", names[i]);
        /* Rank: prefix matches first (distance -1), then by distance; ties keep catalog order. */
        int r = prefix ? -1 : d;
        prefixed += prefix;
        for (int k = 0; k < 3; k++)
            if (r < best[k]) {
                for (int j = 2; j > k; j--) best[j] = best[j - 1], pick[j] = pick[j - 1];
                best[k] = r, pick[k] = i;
                break;
            }
    }
    if (matches == 1) {
        catalog_free(names);
        return ZS_OK;
    }
    used[0] = '\0';
    /* Suggest prefix matches, or names within a third of the name's length (at least 2). */
    int limit = (int)wl / 3 > 2 ? (int)wl / 3 : 2, n = 0;
    while (n < 3 && pick[n] >= 0 && (best[n] < 0 || (!prefixed && best[n] <= limit))) n++;
    for (int k = 0; k < n; k++) append_name(hint, sizeof hint, k, n, names[pick[k]]);
    zs_fail(err, ZS_ERR_INPUT, "unknown %s \"%s\"%s%s%s (not a file, and not in %s; see 'zerosim list %s')",
        what, name, n ? ": did you mean " : "", hint, n ? "?" : "", dir, kind);
    catalog_free(names);
    return err->code;
}

/* A directory given as a model: its config.json (a Hugging Face checkpoint folder). */
static int resolve_dir(const char *kind, const char *name, char *out, size_t len, zs_error *err)
{
    if (strcmp(kind, "models") != 0)
        return zs_fail(err, ZS_ERR_INPUT, "%s is a directory, not a hardware profile JSON", name);
    size_t nl = strlen(name);
    snprintf(out, len, "%s%sconfig.json", name, nl && name[nl - 1] == '/' ? "" : "/");
    if (access(out, R_OK) == 0) return ZS_OK;
    return zs_fail(err, ZS_ERR_INPUT,
        "%s is a directory without config.json (a Hugging Face checkpoint folder holds one)", name);
}

int catalog_resolve_named(
    const char *kind, const char *name, char *out, size_t len, char *used, size_t ulen, zs_error *err)
{
    char spare[256];
    if (!used) used = spare, ulen = sizeof spare;
    used[0] = '\0';
    size_t nl = strlen(name);
    bool json = nl > 5 && strcmp(name + nl - 5, ".json") == 0;
    bool pathlike = json || name[0] == '/' || name[0] == '.' || name[0] == '~';
    if (is_dir(name)) return resolve_dir(kind, name, out, len, err);
    if (strchr(name, '/') || json) {
        if (access(name, R_OK) == 0) {
            snprintf(out, len, "%s", name);
            return ZS_OK;
        }
        /* "org/name" (a Hub repository id) is looked up in the catalog; a path is not. */
        if (pathlike || strchr(name, '/') != strrchr(name, '/'))
            return zs_fail(err, ZS_ERR_INPUT, "%s: cannot open: no such readable file", name);
    }
    char dir[4096];
    if (catalog_dir(kind, dir, sizeof dir, err)) return err->code;
    if (!strchr(name, '/')) {
        snprintf(out, len, "%s/%s.json", dir, name);
        if (access(out, R_OK) == 0) return ZS_OK;
    }
    if (resolve_loose(kind, dir, name, used, ulen, err)) return err->code;
    snprintf(out, len, "%s/%s.json", dir, used);
    return ZS_OK;
}

int catalog_resolve(const char *kind, const char *name, char *out, size_t len, zs_error *err)
{
    return catalog_resolve_named(kind, name, out, len, NULL, 0, err);
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int catalog_list(const char *kind, char ***names, zs_error *err)
{
    char dir[4096];
    if (catalog_dir(kind, dir, sizeof dir, err)) return err->code;
    DIR *d = opendir(dir);
    if (!d) return zs_fail(err, ZS_ERR_INPUT, "%s: cannot open directory", dir);
    size_t n = 0, cap = 16;
    char **v = malloc(cap * sizeof *v);
    struct dirent *e;
    while (v && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 5 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        if (n + 1 >= cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv) {
                catalog_free((v[n] = NULL, v));
                v = NULL;
                break;
            }
            v = nv;
        }
        v[n] = strndup(e->d_name, l - 5);
        if (v[n]) n++;
    }
    closedir(d);
    if (!v) return zs_fail(err, ZS_ERR_NOMEM, "out of memory listing %s", dir);
    v[n] = NULL;
    qsort(v, n, sizeof *v, cmp);
    *names = v;
    return ZS_OK;
}

void catalog_free(char **names)
{
    if (!names) return;
    for (char **p = names; *p; p++) free(*p);
    free(names);
}
