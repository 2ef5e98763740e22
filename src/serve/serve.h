/* serve.h -- `zerosim serve`, the serve layer's command (main.c's table names it). */
#ifndef ZS_SERVE_H
#define ZS_SERVE_H

/* Serve the page and the JSON endpoints (serve/http.h) until SIGINT or SIGTERM. Returns the
 * exit status: 0 stopped cleanly, 2 a usage error, 3 a catalog folder that is not one, 4 the
 * address cannot be listened on or the temporary folder written; each with one line on stderr. */
int cmd_serve(int argc, char **argv);

#endif
