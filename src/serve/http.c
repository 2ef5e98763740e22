/* http.c -- the HTTP server: routes, limits and headers over libmicrohttpd and zs_call. */
#include "serve/http.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "core/error.h"
#include "api/response.h"
#include "api/zerosim.h"
#include "serve/assets.h"
#include "serve/cache.h"
#include "serve/vet.h"

struct serve_server {
    struct MHD_Daemon *d;
    bool loopback;
    char tmpdir[512];   /* uploads go in folders of their own here */
    char workdir[512];  /* the working directory and catalogs: its path is left out of answers */
    serve_cache *cache; /* answers by request; NULL: none */
};

/* A request being read: its route and its body so far. */
typedef struct req {
    char *body;
    size_t len, cap;
    bool too_big;
} req;

static const char JSON[] = "application/json";
static const char HTML[] = "text/html; charset=utf-8";

/* The headers every answer carries: scripts, styles, images and requests from this server
 * only, no inline script or style, no framing, no type sniffing, no caching. */
static const char *const headers[][2] = {
    {"Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"},
    {"X-Content-Type-Options", "nosniff"},
    {"X-Frame-Options", "DENY"},
    {"Referrer-Policy", "no-referrer"},
    {"Cross-Origin-Resource-Policy", "same-origin"},
    {"Cache-Control", "no-store"},
};

/* Answer with status and len bytes of type (copied), and extra headers: name, value pairs
 * ending with a NULL name (extra itself may be NULL). */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, const char *data,
    size_t len, const char *const *extra)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(uintptr_t)data, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
        MHD_add_response_header(r, headers[i][0], headers[i][1]);
    for (; extra && extra[0]; extra += 2) MHD_add_response_header(r, extra[0], extra[1]);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* {"error": {"code": code, "message": msg}}, as zs_call words a refusal, with an HTTP status. */
static enum MHD_Result reply_error(
    struct MHD_Connection *c, unsigned status, int code, const char *msg, const char *allow)
{
    char *text = api_error_json(code, msg);
    if (!text) return MHD_NO;
    const char *extra[] = {allow ? "Allow" : NULL, allow, NULL};
    enum MHD_Result ok = reply(c, status, JSON, text, strlen(text), extra);
    free(text);
    return ok;
}

/* The HTTP status for zs_call's exit status: answered (0, or 1 nothing fits), refused, failed. */
static unsigned status_of(int rc)
{
    return rc <= ZS_ERR_NOFIT                      ? MHD_HTTP_OK
        : rc == ZS_ERR_USAGE || rc == ZS_ERR_INPUT ? MHD_HTTP_BAD_REQUEST
                                                   : MHD_HTTP_INTERNAL_SERVER_ERROR;
}

/* A form's "request" field, percent-decoded in place (NUL-terminated); NULL when absent. */
static char *form_field(char *body, const char *name)
{
    size_t n = strlen(name);
    for (char *p = body; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
        if (strncmp(p, name, n) != 0 || p[n] != '=') continue;
        char *r = p + n + 1, *w = body;
        for (; *r && *r != '&'; r++) {
            unsigned v;
            if (*r == '+')
                *w++ = ' ';
            else if (*r == '%' && r[1] && r[2] && sscanf(r + 1, "%2x", &v) == 1)
                *w++ = (char)v, r += 2;
            else
                *w++ = *r;
        }
        *w = '\0';
        return body;
    }
    return NULL;
}

/* zs_call's answer to a vetted request (its exit status in *rc), from the cache when it holds
 * one (*hit); without uploads, a computed answer (not a refusal) is kept there. NULL: out of
 * memory. */
static char *answer_of(serve_server *s, const char *json, const serve_upload *up, int *rc, bool *hit)
{
    char *answer = up->dir[0] ? NULL : serve_cache_get(s->cache, json, rc);
    if ((*hit = answer != NULL)) return answer;
    *rc = zs_call(json, &answer);
    serve_vet_unpath(up->dir, answer);
    serve_vet_unpath(s->workdir, answer);
    if (answer && *rc <= ZS_ERR_NOFIT && !up->dir[0]) serve_cache_put(s->cache, json, answer, *rc);
    return answer;
}

/* POST /api/v1/call and /api/v1/report: vet the request, answer it, remove its uploads. */
static enum MHD_Result answer_call(serve_server *s, struct MHD_Connection *c, req *r, bool download)
{
    const char *ctype = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    bool form = ctype && strncasecmp(ctype, "application/x-www-form-urlencoded", 33) == 0;
    /* JSON only (a browser sends it cross-origin only after a CORS preflight, never answered);
     * the report's download also as a same-origin form (form-action 'self'). */
    if (!(ctype && strncasecmp(ctype, JSON, strlen(JSON)) == 0) && !(download && form))
        return reply_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, ZS_ERR_USAGE,
            download ? "expected a JSON request (Content-Type: application/json) or a form's request field"
                     : "expected a JSON request (Content-Type: application/json)",
            NULL);
    const char *body = r->body ? r->body : "";
    size_t len = r->len;
    if (form) {
        body = form_field(r->body ? r->body : (char *)(uintptr_t) "", "request");
        if (!body)
            return reply_error(c, MHD_HTTP_BAD_REQUEST, ZS_ERR_USAGE, "the form has no request field", NULL);
        len = strlen(body);
    }
    char msg[1024] = "", command[32], *json = NULL, *answer = NULL;
    serve_upload up;
    int rc = serve_vet(body, len, s->tmpdir, &json, command, sizeof command, &up, msg, sizeof msg);
    if (!rc && download && strcmp(command, "report") != 0)
        rc = ZS_ERR_USAGE, snprintf(msg, sizeof msg, "/api/v1/report: expected \"command\": \"report\"");
    enum MHD_Result ok;
    bool hit = false;
    if (!rc) answer = answer_of(s, json, &up, &rc, &hit);
    if (rc && !answer) {
        ok = reply_error(c, status_of(rc), rc, msg, NULL);
    } else if (!answer) {
        ok = reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, ZS_ERR_NOMEM, "out of memory", NULL);
    } else {
        bool page = strcmp(command, "report") == 0 && answer[0] != '{';
        const char *extra[] = {"X-Zerosim-Cache", hit ? "hit" : "miss",
            page && download ? "Content-Disposition" : NULL, "attachment; filename=\"zerosim-report.html\"",
            NULL};
        ok = reply(c, status_of(rc), page ? HTML : JSON, answer, strlen(answer), extra);
    }
    serve_vet_done(&up);
    cJSON_free(json);
    zs_free(answer);
    return ok;
}

/* GET /api/v1/models and /api/v1/hardware: the catalog's names, as list answers them. */
static enum MHD_Result answer_list(struct MHD_Connection *c, const char *what)
{
    char request[96], *answer = NULL;
    snprintf(request, sizeof request, "{\"command\": \"list\", \"what\": \"%s\"}", what);
    int rc = zs_call(request, &answer);
    enum MHD_Result ok = answer ? reply(c, status_of(rc), JSON, answer, strlen(answer), NULL) : MHD_NO;
    zs_free(answer);
    return ok;
}

/* Bound to loopback, the Host header must name loopback too: a page elsewhere cannot reach the
 * server through a name it points at 127.0.0.1 (DNS rebinding). No header (HTTP/1.0) passes. */
static bool host_ok(const serve_server *s, struct MHD_Connection *c)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!s->loopback || !h) return true;
    size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":");
    if (h[n] != '\0' && h[n] != ':') return false;
    return (n == 9 && strncasecmp(h, "127.0.0.1", n) == 0) ||
        (n == 9 && strncasecmp(h, "localhost", n) == 0) || (n == 5 && strncmp(h, "[::1]", n) == 0);
}

/* Which answer: the method and path once the request is whole. */
static enum MHD_Result route(
    serve_server *s, struct MHD_Connection *c, const char *url, const char *method, req *r)
{
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0, post = strcmp(method, "POST") == 0;
    if (!host_ok(s, c))
        return reply_error(
            c, MHD_HTTP_MISDIRECTED_REQUEST, ZS_ERR_USAGE, "Host: expected a loopback address", NULL);
    if (r->too_big)
        return reply_error(
            c, MHD_HTTP_CONTENT_TOO_LARGE, ZS_ERR_USAGE, "the request is larger than 1 MiB", NULL);
    bool call = strcmp(url, "/api/v1/call") == 0, report = strcmp(url, "/api/v1/report") == 0;
    if (call || report) {
        if (!post) return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, ZS_ERR_USAGE, "expected POST", "POST");
        return answer_call(s, c, r, report);
    }
    bool models = strcmp(url, "/api/v1/models") == 0, hw = strcmp(url, "/api/v1/hardware") == 0;
    const serve_asset *a = models || hw ? NULL : serve_asset_find(url);
    if (!models && !hw && !a) {
        char msg[160];
        snprintf(msg, sizeof msg, "%.100s: no such page", url);
        for (char *p = msg; *p; p++)
            if ((unsigned char)*p < 0x20) *p = '?';
        return reply_error(c, MHD_HTTP_NOT_FOUND, ZS_ERR_USAGE, msg, NULL);
    }
    if (!get) return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, ZS_ERR_USAGE, "expected GET", "GET, HEAD");
    if (a) return reply(c, MHD_HTTP_OK, a->type, (const char *)a->data, a->len, NULL);
    return answer_list(c, models ? "models" : "hardware");
}

/* libmicrohttpd's access handler: called at the headers, for each piece of the body, and at
 * its end (an empty piece), with *state ours throughout. */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **state)
{
    (void)version;
    req *r = *state;
    if (!r) {
        if (!(r = calloc(1, sizeof *r))) return MHD_NO;
        *state = r;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > SERVE_BODY_MAX) {
            r->too_big = true; /* answered now: the body is never read and the connection closes */
            return route(cls, c, url, method, r);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (r->too_big) return MHD_YES;
        if (r->len + n > SERVE_BODY_MAX) {
            r->too_big = true;
            free(r->body);
            r->body = NULL;
            return MHD_YES;
        }
        if (r->len + n + 1 > r->cap) {
            size_t cap = (r->len + n + 1) * 2;
            char *b = realloc(r->body, cap < SERVE_BODY_MAX + 1 ? cap : SERVE_BODY_MAX + 1);
            if (!b) return MHD_NO;
            r->body = b, r->cap = cap < SERVE_BODY_MAX + 1 ? cap : SERVE_BODY_MAX + 1;
        }
        memcpy(r->body + r->len, upload, n);
        r->len += n;
        r->body[r->len] = '\0';
        return MHD_YES;
    }
    return route(cls, c, url, method, r);
}

static void completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why)
{
    (void)cls, (void)c, (void)why;
    req *r = *state;
    if (r) free(r->body);
    free(r);
    *state = NULL;
}

bool serve_address_ok(const char *bind)
{
    unsigned char a[sizeof(struct in6_addr)];
    return inet_pton(strchr(bind, ':') ? AF_INET6 : AF_INET, bind, a) == 1;
}

serve_server *serve_start(const char *bind, int port, bool loopback, const char *tmpdir, size_t cache,
    int *port_out, char *msg, size_t mlen)
{
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
    bool v6 = strchr(bind, ':') != NULL;
    if (!serve_address_ok(bind)) {
        snprintf(msg, mlen, "--bind %.64s: expected an IPv4 or IPv6 address such as 127.0.0.1", bind);
        return NULL;
    }
    if (v6)
        inet_pton(AF_INET6, bind, &a6.sin6_addr);
    else
        inet_pton(AF_INET, bind, &a4.sin_addr);
    serve_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(msg, mlen, "out of memory");
        return NULL;
    }
    s->loopback = loopback;
    if (cache && !(s->cache = serve_cache_new(cache))) {
        snprintf(msg, mlen, "out of memory");
        free(s);
        return NULL;
    }
    snprintf(s->tmpdir, sizeof s->tmpdir, "%s/uploads", tmpdir);
    snprintf(s->workdir, sizeof s->workdir, "%s/cwd", tmpdir);
    unsigned flags =
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | (v6 ? MHD_USE_IPv6 : 0);
    s->d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR,
        v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)SERVE_PER_CLIENT, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)SERVE_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_TIMEOUT_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024, MHD_OPTION_END);
    if (!s->d) {
        snprintf(
            msg, mlen, "cannot listen on %s port %d (taken, or not an address of this machine)", bind, port);
        serve_cache_free(s->cache);
        free(s);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    *port_out = info ? info->port : port;
    return s;
}

void serve_stop(serve_server *s)
{
    if (!s) return;
    MHD_stop_daemon(s->d);
    serve_cache_free(s->cache);
    free(s);
}
