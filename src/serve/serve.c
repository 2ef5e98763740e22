/* serve.c -- `zerosim serve`: options, the catalogs and temporary folder, signals, shutdown. */
#include "serve/serve.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "io/catalog.h"
#include "cmd/cli.h"
#include "serve/cache.h"
#include "serve/http.h"

static void usage(FILE *f, const cli_opt *opts)
{
    fprintf(f,
        "usage: zerosim serve [--port 8080] [--bind 127.0.0.1] [--models DIR] [--hardware DIR] [--cache "
        "N]\n\n"
        "A local web page over the library's request API: pick a model (catalog, or upload a\n"
        "config.json, ds_config or launch YAML), a GPU and the parallelism and watch compare's\n"
        "table, the memory bars, the step time and the cost change as you type. POST /api/v1/call\n"
        "takes the request JSON zs_call takes (zerosim.h) and answers what --format json prints.\n"
        "Loopback only unless --bind says otherwise; requests never name files on this machine.\n"
        "Stops cleanly at SIGINT (Ctrl-C) or SIGTERM. Exit status: 0 stopped, 2 usage, 3 bad\n"
        "catalog, 4 cannot listen or write the temporary folder.\n\nOptions:\n");
    cli_print_options(f, opts);
}

/* An address on this machine only: 127.0.0.0/8 or ::1. */
static bool loopback_address(const char *a)
{
    return strncmp(a, "127.", 4) == 0 || strcmp(a, "::1") == 0;
}

/* The catalog folder the server reads for kind: dir as given (a folder, made absolute), else the
 * one the command line would use; linked as cwd/<kind> under tmp, which $ZEROSIM_DATA names. */
static int link_catalog(const char *kind, const char *dir, const char *tmp, char *msg, size_t mlen)
{
    char from[PATH_MAX], to[PATH_MAX + 32], cwd[PATH_MAX];
    zs_error err = {0};
    struct stat st;
    if (dir && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        snprintf(msg, mlen, "--%s %.200s: expected a folder of catalog JSON files", kind, dir);
        return ZS_ERR_INPUT;
    }
    if (!dir && catalog_dir(kind, to, sizeof to, &err)) {
        snprintf(msg, mlen, "%s", err.msg);
        return ZS_ERR_INPUT;
    }
    const char *d = dir ? dir : to;
    if (d[0] != '/' && !getcwd(cwd, sizeof cwd)) {
        snprintf(msg, mlen, "cannot read the working directory: %s", strerror(errno));
        return ZS_ERR_IO;
    }
    if (snprintf(from, sizeof from, "%s%s%s", d[0] == '/' ? "" : cwd, d[0] == '/' ? "" : "/", d) >=
        (int)sizeof from) {
        snprintf(msg, mlen, "--%s: the folder's path is too long", kind);
        return ZS_ERR_INPUT;
    }
    snprintf(to, sizeof to, "%s/cwd/%s", tmp, kind);
    if (symlink(from, to) != 0) {
        snprintf(msg, mlen, "cannot link the %s catalog into %s: %s", kind, tmp, strerror(errno));
        return ZS_ERR_IO;
    }
    return ZS_OK;
}

/* The server's own folder: uploads/ (each request's uploads) and cwd/, the working directory
 * and $ZEROSIM_DATA, holding only the links to the catalogs: no relative name reaches another
 * file, and a report names its catalog files as models/NAME.json, as from the source tree. */
static int make_tmp(char *tmp, size_t len, const char *models, const char *hardware, char *msg, size_t mlen)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmp, len, "%s/zerosim-serve-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp)) {
        snprintf(
            msg, mlen, "cannot make a temporary folder in %s: %s", t && *t ? t : "/tmp", strerror(errno));
        tmp[0] = '\0';
        return ZS_ERR_IO;
    }
    char p[PATH_MAX];
    const char *subs[] = {"uploads", "cwd"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", tmp, subs[i]);
        if (mkdir(p, 0700) != 0) {
            snprintf(msg, mlen, "cannot make %s: %s", p, strerror(errno));
            return ZS_ERR_IO;
        }
    }
    int rc = link_catalog("models", models, tmp, msg, mlen);
    if (!rc) rc = link_catalog("hardware", hardware, tmp, msg, mlen);
    if (rc) return rc;
    snprintf(p, sizeof p, "%s/cwd", tmp);
    setenv("ZEROSIM_DATA", p, 1);
    setenv("HF_HUB_OFFLINE", "1", 1);  /* a model name never downloads (vet refuses Hub ids too) */
    setenv("ZEROSIM_THREADS", "1", 0); /* one thread a request: the connections are the parallelism */
    snprintf(p, sizeof p, "%s/cwd", tmp);
    if (chdir(p) != 0) {
        snprintf(msg, mlen, "cannot enter %s: %s", p, strerror(errno));
        return ZS_ERR_IO;
    }
    char **names = NULL;
    zs_error err = {0};
    for (int i = 0; i < 2; i++) {
        if (catalog_list(i ? "hardware" : "models", &names, &err)) {
            snprintf(msg, mlen, "%s", err.msg);
            return err.code;
        }
        catalog_free(names);
    }
    return ZS_OK;
}

static void remove_tmp(const char *tmp)
{
    if (!tmp[0]) return;
    char p[PATH_MAX];
    const char *items[] = {"cwd/models", "cwd/hardware", "cwd", "uploads"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", tmp, items[i]);
        if (remove(p) != 0 && errno != ENOENT) fprintf(stderr, "zerosim serve: cannot remove %s\n", p);
    }
    if (chdir("/") != 0 || rmdir(tmp) != 0) fprintf(stderr, "zerosim serve: cannot remove %s\n", tmp);
}

/* serve takes no positional argument. */
static int take_none(void *ctx, int id, const char *value, zs_error *err)
{
    (void)ctx, (void)id;
    return zs_fail(err, ZS_ERR_USAGE, "unexpected argument \"%.64s\" (see 'zerosim serve --help')", value);
}

static int fail(int code, const char *msg)
{
    fprintf(stderr, "zerosim serve: %s\n", msg);
    return code;
}

/* Listen until SIGINT or SIGTERM (blocked in every thread, taken here by sigwait). */
static int run(const char *bind, int port, size_t cache, const char *tmp)
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    char msg[512];
    int got = port;
    serve_server *s = serve_start(bind, port, loopback_address(bind), tmp, cache, &got, msg, sizeof msg);
    if (!s) return fail(ZS_ERR_IO, msg);
    bool v6 = strchr(bind, ':') != NULL;
    char line[256]; /* one write: a reader waiting for the line sees it whole */
    snprintf(line, sizeof line, "zerosim serve: http://%s%s%s:%d/ (Ctrl-C stops)\n", v6 ? "[" : "", bind,
        v6 ? "]" : "", got);
    fputs(line, stderr);
    fflush(stderr);
    int sig = 0;
    while (sigwait(&stop, &sig) != 0) {}
    serve_stop(s);
    fprintf(stderr, "zerosim serve: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return ZS_OK;
}

int cmd_serve(int argc, char **argv)
{
    int64_t port = 8080, cache = SERVE_CACHE_ENTRIES;
    const char *bind = "127.0.0.1", *models = NULL, *hardware = NULL;
    const cli_opt opts[] = {
        {"port", "N", "TCP port (default 8080; 0: any free one, printed)", .whole = &port, .min = 0,
            .max = 65535},
        {"bind", "ADDR", "listen address (default 127.0.0.1; any other is reachable from other machines)",
            .text = &bind},
        {"cache", "N",
            "answers kept by request (default 256; 0: none); the catalogs are read as at each one's first "
            "answer",
            .whole = &cache, .min = 0, .max = 1 << 20},
        {"models", "DIR", "model catalog folder (default: the command line's)", .text = &models},
        {"hardware", "DIR", "hardware catalog folder (default: the command line's)", .text = &hardware},
        {NULL},
    };
    zs_error err = {0};
    int rc = cli_parse(argc, argv, opts, take_none, NULL, &err);
    if (rc == CLI_HELP) {
        usage(stdout, opts);
        return ZS_OK;
    }
    if (rc) return fail(err.code, err.msg);
    if (!serve_address_ok(bind)) {
        snprintf(err.msg, sizeof err.msg, "--bind %.64s: expected an IPv4 or IPv6 address such as 127.0.0.1",
            bind);
        return fail(ZS_ERR_USAGE, err.msg);
    }
    if (!loopback_address(bind))
        fprintf(stderr,
            "zerosim serve: warning: --bind %s: other machines can reach this server; it has no "
            "authentication and no TLS\n",
            bind);
    /* A computed answer allocates and frees a few hundred kB (the compare rows, the JSON tree
     * and text); glibc's default thresholds hand that back to the kernel after each request
     * and fault it in again on the next (a fifth of a compare's time under load). Keep up to
     * 64 MiB of freed heap instead. */
#ifdef M_TRIM_THRESHOLD
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TOP_PAD, 1 << 20);
#endif
    char tmp[PATH_MAX - 64], msg[PATH_MAX + 256];
    rc = make_tmp(tmp, sizeof tmp, models, hardware, msg, sizeof msg);
    if (!rc)
        rc = run(bind, (int)port, (size_t)cache, tmp);
    else
        fail(rc, msg);
    remove_tmp(tmp);
    return rc;
}
