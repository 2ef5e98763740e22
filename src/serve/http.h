/* http.h -- the HTTP server (libmicrohttpd): the page, its files and the JSON endpoints. */
#ifndef ZS_SERVE_HTTP_H
#define ZS_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* Per client address: at most this many connections at once (each one a thread). */
#define SERVE_PER_CLIENT 16
/* Connections in all, and the seconds a connection may sit idle or trickle its request. */
#define SERVE_CONNECTIONS 128
#define SERVE_TIMEOUT_S 15

typedef struct serve_server serve_server;

/* Listen on bind:port (port 0: any free one; *port_out the one taken) and answer from threads
 * of their own until serve_stop: GET / and the page's files, POST /api/v1/call (a zs_call
 * request, vetted by serve_vet with uploads under tmpdir), POST /api/v1/report (the report
 * page as an attachment; the request as JSON or as a form's "request" field), GET
 * /api/v1/models and /api/v1/hardware. loopback: the Host header must name a loopback
 * address (no DNS rebinding). cache: the answers kept by request (serve/cache.h; 0 none). Returns the server,
 * or NULL with one line in msg (the address does not parse, the port is taken, out of memory). */
serve_server *serve_start(const char *bind, int port, bool loopback, const char *tmpdir, size_t cache,
    int *port_out, char *msg, size_t mlen);

/* Whether bind reads as an IPv4 or IPv6 address. Never fails. */
bool serve_address_ok(const char *bind);

/* Stop listening, finish the requests under way and free the server. NULL is ignored. */
void serve_stop(serve_server *s);

#endif
