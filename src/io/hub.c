/* hub.c -- models by Hugging Face Hub id: the local cache, else one config.json downloaded with
 * libcurl into that cache (the layout huggingface_hub writes, so transformers reuses it). */
#include "io/hub.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/atomicfile.h"

#define HUB_MAX_BODY (16L << 20) /* a config.json is kilobytes; refuse anything past 16 MiB */

static bool id_char(int c)
{
    return isalnum(c) || c == '-' || c == '_' || c == '.';
}

/* One half of a repository id: 1 to 96 of [A-Za-z0-9._-], starting with a letter or digit,
 * without "--" or ".." (the cache folder's name joins org and name with "--"). */
static bool repo_part(const char *s, size_t n)
{
    if (n == 0 || n > 96 || !isalnum((unsigned char)s[0])) return false;
    for (size_t i = 0; i < n; i++) {
        if (!id_char((unsigned char)s[i])) return false;
        if (i && (s[i] == '-' || s[i] == '.') && s[i - 1] == s[i]) return false;
    }
    return true;
}

/* A revision is a path under refs/: no "..", no empty component, no leading or trailing '/'. */
static bool rev_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof ((hub_ref *)0)->rev || s[0] == '/' || s[n - 1] == '/') return false;
    if (strstr(s, "..") || strstr(s, "//")) return false;
    for (size_t i = 0; i < n; i++)
        if (!id_char((unsigned char)s[i]) && s[i] != '/') return false;
    return strcmp(s, ".") != 0 && strncmp(s, "./", 2) != 0 && !strstr(s, "/./") &&
           !(n >= 2 && strcmp(s + n - 2, "/.") == 0);
}

bool hub_parse(const char *id, hub_ref *r)
{
    size_t n = strlen(id);
    if (n == 0 || id[0] == '.' || id[0] == '/' || id[0] == '~') return false;
    if (n > 5 && strcmp(id + n - 5, ".json") == 0) return false;
    const char *at = strchr(id, '@');
    size_t repo = at ? (size_t)(at - id) : n;
    const char *slash = memchr(id, '/', repo);
    if (!slash || memchr(slash + 1, '/', repo - (size_t)(slash - id) - 1)) return false;
    size_t on = (size_t)(slash - id), nn = repo - on - 1;
    if (!repo_part(id, on) || !repo_part(slash + 1, nn)) return false;
    const char *rev = at ? at + 1 : "main";
    if (!rev_ok(rev)) return false;
    memcpy(r->org, id, on);
    r->org[on] = '\0';
    memcpy(r->name, slash + 1, nn);
    r->name[nn] = '\0';
    snprintf(r->rev, sizeof r->rev, "%s", rev);
    return true;
}

bool hub_is_commit(const char *rev)
{
    size_t n = 0;
    for (; rev[n]; n++)
        if (!isxdigit((unsigned char)rev[n]) || isupper((unsigned char)rev[n])) return false;
    return n == 40;
}

int hub_cache_dir(char *out, size_t len, zs_error *err)
{
    const char *v;
    int n;
    if ((v = getenv("HF_HUB_CACHE")) && *v)
        n = snprintf(out, len, "%s", v);
    else if ((v = getenv("HF_HOME")) && *v)
        n = snprintf(out, len, "%s/hub", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && *v)
        n = snprintf(out, len, "%s/huggingface/hub", v);
    else if ((v = getenv("HOME")) && *v)
        n = snprintf(out, len, "%s/.cache/huggingface/hub", v);
    else
        return zs_fail(err, ZS_ERR_INPUT, "no Hugging Face cache: set HF_HUB_CACHE, HF_HOME or HOME");
    if (n < 0 || (size_t)n >= len) return zs_fail(err, ZS_ERR_INPUT, "Hugging Face cache path too long");
    return ZS_OK;
}

bool hub_offline(void)
{
    const char *v = getenv("HF_HUB_OFFLINE");
    if (!v) return false;
    return !strcasecmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcasecmp(v, "true");
}

/* cache/models--org--name into out; false when it does not fit. */
static bool repo_dir(const hub_ref *r, const char *cache, char *out, size_t len)
{
    int n = snprintf(out, len, "%s/models--%s--%s", cache, r->org, r->name);
    return n > 0 && (size_t)n < len;
}

/* A commit hash as a folder name: what refs/ or X-Repo-Commit gave, kept to safe characters. */
static bool hash_ok(const char *h)
{
    size_t n = strlen(h);
    if (n == 0 || n > 64 || strcmp(h, ".") == 0 || strcmp(h, "..") == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (!id_char((unsigned char)h[i])) return false;
    return true;
}

bool hub_cached(const hub_ref *r, const char *cache, char *out, size_t len)
{
    char dir[4096], ref[4400], hash[256] = "";
    if (!repo_dir(r, cache, dir, sizeof dir)) return false;
    if (hub_is_commit(r->rev)) {
        snprintf(hash, sizeof hash, "%s", r->rev);
    } else {
        snprintf(ref, sizeof ref, "%s/refs/%s", dir, r->rev);
        FILE *f = fopen(ref, "r");
        if (!f) return false;
        bool got = fgets(hash, sizeof hash, f) != NULL;
        fclose(f);
        if (!got) return false;
        hash[strcspn(hash, " \t\r\n")] = '\0';
    }
    if (!hash_ok(hash)) return false;
    int n = snprintf(out, len, "%s/snapshots/%s/config.json", dir, hash);
    return n > 0 && (size_t)n < len && access(out, R_OK) == 0;
}

/* mkdir -p for the folders the cache needs (path itself included). */
static int make_dirs(char *path)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        int rc = mkdir(path, 0777);
        int e = errno;
        *p = c;
        if (rc != 0 && e != EEXIST) return (errno = e, -1);
        if (c == '\0') return 0;
    }
}

/* What one transfer collects: the body (capped) and the last X-Repo-Commit header seen. */
typedef struct fetch {
    char *body;
    size_t len, cap;
    bool too_big;
    char commit[128];
} fetch;

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
    fetch *f = user;
    size_t n = size * nmemb;
    if (f->len + n > (size_t)HUB_MAX_BODY) return (f->too_big = true, 0);
    if (f->len + n + 1 > f->cap) {
        size_t cap = f->cap ? f->cap : 4096;
        while (cap < f->len + n + 1) cap *= 2;
        char *b = realloc(f->body, cap);
        if (!b) return 0;
        f->body = b;
        f->cap = cap;
    }
    memcpy(f->body + f->len, data, n);
    f->len += n;
    f->body[f->len] = '\0';
    return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *user)
{
    fetch *f = user;
    size_t n = size * nmemb;
    static const char key[] = "x-repo-commit:";
    if (n > sizeof key - 1 && strncasecmp(data, key, sizeof key - 1) == 0) {
        const char *v = data + sizeof key - 1;
        size_t vl = n - (sizeof key - 1);
        while (vl && (*v == ' ' || *v == '\t')) v++, vl--;
        while (vl && isspace((unsigned char)v[vl - 1])) vl--;
        if (vl && vl < sizeof f->commit) {
            memcpy(f->commit, v, vl);
            f->commit[vl] = '\0';
        }
    }
    return n;
}

/* The revision as one URL path segment ('/' of refs/pr/1 as %2F, as huggingface_hub sends). */
static void url_rev(const char *rev, char *out, size_t len)
{
    size_t o = 0;
    for (; *rev && o + 4 < len; rev++) {
        if (*rev == '/') o += (size_t)snprintf(out + o, len - o, "%%2F");
        else out[o++] = *rev;
    }
    out[o] = '\0';
}

/* Run the transfer; ZS_OK with *status set, or ZS_ERR_IO with curl's message. */
static int transfer(const hub_ref *r, fetch *f, long *status, zs_error *err)
{
    const char *ep = getenv("HF_ENDPOINT");
    if (!ep || !*ep) ep = "https://huggingface.co";
    size_t el = strlen(ep);
    while (el && ep[el - 1] == '/') el--;
    char rev[800], url[4096], auth[4200];
    url_rev(r->rev, rev, sizeof rev);
    snprintf(url, sizeof url, "%.*s/%s/%s/resolve/%s/config.json", (int)el, ep, r->org, r->name, rev);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return zs_fail(err, ZS_ERR_IO, "%s/%s: cannot start libcurl", r->org, r->name);
    CURL *c = curl_easy_init();
    if (!c) return (curl_global_cleanup(), zs_fail(err, ZS_ERR_NOMEM, "out of memory starting libcurl"));
    struct curl_slist *hdr = NULL;
    const char *tok = getenv("HF_TOKEN");
    if (tok && tok[strcspn(tok, "\r\n")]) tok = NULL; /* a line break would forge headers: not sent */
    if (tok && *tok) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", tok);
        hdr = curl_slist_append(hdr, auth);
    }
    char msg[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "zerosim (libcurl)");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#endif
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, msg);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, f);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    curl_global_cleanup();
    if (f->too_big)
        return zs_fail(err, ZS_ERR_INPUT, "%s/%s: config.json is larger than %ld MiB", r->org, r->name,
            HUB_MAX_BODY >> 20);
    if (rc != CURLE_OK)
        return zs_fail(err, ZS_ERR_IO, "%s/%s: download failed: %s", r->org, r->name,
            msg[0] ? msg : curl_easy_strerror(rc));
    return ZS_OK;
}

/* Write the body into the cache: the snapshot, then the ref that points at it. */
static int store(const hub_ref *r, const char *cache, const fetch *f, char *out, size_t len, zs_error *err)
{
    const char *hash = f->commit[0] ? f->commit : r->rev;
    if (strchr(hash, '/') || !hash_ok(hash))
        return zs_fail(
            err, ZS_ERR_INPUT, "%s/%s: the Hub named an unusable commit \"%.64s\"", r->org, r->name, hash);
    char dir[4096], path[4400];
    if (!repo_dir(r, cache, dir, sizeof dir))
        return zs_fail(err, ZS_ERR_IO, "%s: cache path too long", cache);
    snprintf(path, sizeof path, "%s/snapshots/%s", dir, hash);
    if (make_dirs(path) != 0)
        return zs_fail(err, ZS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    int n = snprintf(out, len, "%s/config.json", path);
    if (n < 0 || (size_t)n >= len) return zs_fail(err, ZS_ERR_IO, "%s: path too long", path);
    if (atomicfile_write(out, f->body, f->len) != 0)
        return zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", out, strerror(errno));
    if (hub_is_commit(r->rev) && strcmp(hash, r->rev) == 0) return ZS_OK;
    snprintf(path, sizeof path, "%s/refs/%s", dir, r->rev);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    int made = make_dirs(path);
    *slash = '/';
    if (made != 0 || atomicfile_write(path, hash, strlen(hash)) != 0)
        return zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return ZS_OK;
}

int hub_download(const hub_ref *r, const char *cache, char *out, size_t len, zs_error *err)
{
    fetch f = {0};
    long status = 0;
    int rc = transfer(r, &f, &status, err);
    /* the id as given: "@rev" only when a revision other than main was asked for */
    char id[512];
    bool main_rev = strcmp(r->rev, "main") == 0;
    snprintf(id, sizeof id, "%s/%s%s%s", r->org, r->name, main_rev ? "" : "@", main_rev ? "" : r->rev);
    if (rc == ZS_OK) {
        if (status == 401 || status == 403)
            rc = zs_fail(
                err, ZS_ERR_INPUT, "%s: gated or private: accept the license on the Hub or set HF_TOKEN", id);
        else if (status == 404)
            rc = zs_fail(
                err, ZS_ERR_INPUT, "%s: no such repository or revision (or no config.json in it)", id);
        else if (status != 200)
            rc = zs_fail(err, ZS_ERR_INPUT, "%s: the Hub answered HTTP %ld", id, status);
    }
    if (rc == ZS_OK) {
        cJSON *j = cJSON_ParseWithLength(f.body ? f.body : "", f.len);
        if (!cJSON_IsObject(j))
            rc = zs_fail(err, ZS_ERR_INPUT, "%s: the Hub's config.json is not a JSON object", id);
        cJSON_Delete(j);
    }
    if (rc == ZS_OK) rc = store(r, cache, &f, out, len, err);
    free(f.body);
    return rc;
}
