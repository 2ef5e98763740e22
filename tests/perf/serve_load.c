/* serve_load.c -- `make bench`'s load test of zerosim serve: keep-alive HTTP/1.1 clients on the
 * loopback posting one request for a fixed time; prints requests/s and latency percentiles.
 *
 * Usage: serve-load PORT PATH BODYFILE CONNECTIONS SECONDS
 * Prints "requests N errors N rps X p50_ms X p90_ms X p99_ms X max_ms X"; exits 1 when a
 * request failed (a connection error or a status other than 200), 2 on bad arguments. */
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_SAMPLES = 1 << 23, MAX_CONN = 64 }; /* latencies kept in all, split over the connections */

typedef struct worker {
    int port;
    const char *req;
    size_t req_len;
    double until;
    double *lat; /* seconds, one per request */
    long cap;    /* at most this many */
    long n, errors;
} worker;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One request and its whole answer on fd; returns the HTTP status, or -1. */
static int exchange(int fd, const char *req, size_t len, char *buf, size_t cap)
{
    for (size_t sent = 0; sent < len;) {
        ssize_t w = write(fd, req + sent, len - sent);
        if (w <= 0) return -1;
        sent += (size_t)w;
    }
    size_t have = 0, need = 0;
    char *end = NULL;
    while (!end || have < need) {
        if (have == cap) return -1;
        ssize_t r = read(fd, buf + have, cap - have);
        if (r <= 0) return -1;
        have += (size_t)r;
        if (!end && (end = memmem(buf, have, "\r\n\r\n", 4))) {
            char *cl = memmem(buf, (size_t)(end - buf), "Content-Length: ", 16);
            if (!cl) return -1;
            need = (size_t)(end - buf) + 4 + strtoul(cl + 16, NULL, 10);
        }
    }
    return atoi(buf + 9);
}

static void *run(void *arg)
{
    worker *w = arg;
    size_t cap = 1 << 22;
    char *buf = malloc(cap);
    int fd = dial(w->port);
    while (buf && now() < w->until && w->n < w->cap) {
        double t0 = now();
        int status = fd < 0 ? -1 : exchange(fd, w->req, w->req_len, buf, cap);
        if (status != 200) {
            w->errors++;
            if (fd >= 0) close(fd);
            fd = dial(w->port);
            continue;
        }
        w->lat[w->n++] = now() - t0;
    }
    if (fd >= 0) close(fd);
    free(buf);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: serve-load PORT PATH BODYFILE CONNECTIONS SECONDS\n");
        return 2;
    }
    int port = atoi(argv[1]), nc = atoi(argv[4]);
    double secs = atof(argv[5]);
    FILE *f = fopen(argv[3], "rb");
    static char body[1 << 16];
    size_t blen = f ? fread(body, 1, sizeof body - 1, f) : 0;
    if (f) fclose(f);
    if (port <= 0 || nc < 1 || nc > MAX_CONN || secs <= 0 || secs > 60 || blen == 0) {
        fprintf(stderr, "serve-load: bad arguments (1-%d connections, 0-60 s, a non-empty body)\n", MAX_CONN);
        return 2;
    }
    static char req[(1 << 16) + 512];
    int rl = snprintf(req, sizeof req,
        "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: "
        "%zu\r\n\r\n%.*s",
        argv[2], port, blen, (int)blen, body);
    worker w[MAX_CONN];
    pthread_t t[MAX_CONN];
    double t0 = now();
    for (int i = 0; i < nc; i++) {
        long cap = MAX_SAMPLES / nc;
        w[i] = (worker){port, req, (size_t)rl, t0 + secs, malloc(sizeof(double) * (size_t)cap), cap, 0, 0};
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    long n = 0, errors = 0;
    for (int i = 0; i < nc; i++) {
        pthread_join(t[i], NULL);
        n += w[i].n, errors += w[i].errors;
    }
    double wall = now() - t0;
    double *all = malloc(sizeof(double) * (size_t)(n ? n : 1));
    long k = 0;
    for (int i = 0; i < nc; i++) {
        memcpy(all + k, w[i].lat, sizeof(double) * (size_t)w[i].n);
        k += w[i].n;
        free(w[i].lat);
    }
    qsort(all, (size_t)n, sizeof *all, cmp);
#define PCT(p) (n ? 1e3 * all[(long)((double)(n - 1) * (p))] : 0.0)
    printf("requests %ld errors %ld rps %.0f p50_ms %.2f p90_ms %.2f p99_ms %.2f max_ms %.2f\n", n, errors,
        (double)n / wall, PCT(0.5), PCT(0.9), PCT(0.99), PCT(1.0));
    free(all);
    return errors ? 1 : 0;
}
