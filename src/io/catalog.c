/* catalog.c -- catalog directories: $ZEROSIM_DATA, next to the binary, or the working directory. */
#define _DEFAULT_SOURCE
#include "io/catalog.h"

#include <dirent.h>
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

int catalog_resolve(const char *kind, const char *name, char *out, size_t len, zs_error *err)
{
    size_t nl = strlen(name);
    if (strchr(name, '/') || (nl > 5 && strcmp(name + nl - 5, ".json") == 0)) {
        if (access(name, R_OK) != 0)
            return zs_fail(err, ZS_ERR_INPUT, "%s: cannot open: no such readable file", name);
        snprintf(out, len, "%s", name);
        return ZS_OK;
    }
    char dir[4096];
    if (catalog_dir(kind, dir, sizeof dir, err)) return err->code;
    snprintf(out, len, "%s/%s.json", dir, name);
    if (access(out, R_OK) == 0) return ZS_OK;
    return zs_fail(err, ZS_ERR_INPUT, "unknown %s \"%s\" (not a file, and not in %s; see 'zerosim list %s')",
        strcmp(kind, "models") == 0 ? "model" : "hardware profile", name, dir, kind);
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
