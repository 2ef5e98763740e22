/* atomicfile.c -- writing an output file whole or not at all: mkstemp beside the target, then
 * rename; devices and FIFOs written in place. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* realpath, mkstemp, fsync, fchmod */
#endif
#include "io/atomicfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void release(atomicfile *a)
{
    free(a->tmp);
    free(a->target);
    a->f = NULL;
    a->tmp = a->target = NULL;
}

/* Fail with errno e after releasing *a. */
static int fail(atomicfile *a, int e)
{
    release(a);
    errno = e;
    return -1;
}

/* The mode a new file gets from open(..., 0666): 0666 less the umask. */
static mode_t new_file_mode(void)
{
    mode_t m = umask(0);
    umask(m);
    return 0666 & ~m;
}

/* A device, FIFO or socket: write it as the shell's > would, without creating or truncating. */
static int open_direct(atomicfile *a, char *path)
{
    a->target = path;
    int fd = open(path, O_WRONLY | O_NOCTTY);
    if (fd < 0) return fail(a, errno);
    a->f = fdopen(fd, "w");
    if (!a->f) {
        int e = errno;
        close(fd);
        return fail(a, e);
    }
    return 0;
}

/* The descriptor a path names when it is one of the process's own streams (/dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1. */
static int own_fd(const char *p)
{
    if (strcmp(p, "/dev/stdout") == 0) return 1;
    if (strcmp(p, "/dev/stderr") == 0) return 2;
    const char *d = strncmp(p, "/dev/fd/", 8) == 0 ? p + 8
        : strncmp(p, "/proc/self/fd/", 14) == 0    ? p + 14
                                                   : NULL;
    if (!d || !isdigit((unsigned char)*d)) return -1;
    char *end;
    long n = strtol(d, &end, 10);
    return *end || n > INT_MAX ? -1 : (int)n;
}

/* Follow the symlinks of path's last component one hop at a time (at most 40), stopping at one
 * of the process's own streams (*fd = its descriptor, else -1). Returns the last hop (heap),
 * or path itself when the chain dangles (the rename then replaces the link rather than
 * creating its target); NULL with errno set on failure. */
static char *walk_links(const char *path, int *fd)
{
    char *cur = strdup(path);
    for (int hop = 0; cur && hop < 40; hop++) {
        struct stat st;
        if ((*fd = own_fd(cur)) >= 0) return cur;
        if (lstat(cur, &st) != 0) {
            if (errno != ENOENT || hop == 0) return cur;
            free(cur);
            return strdup(path);
        }
        if (!S_ISLNK(st.st_mode)) return cur;
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dirlen = link[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        char *next = malloc(dirlen + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dirlen);
            memcpy(next + dirlen, link, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    if (cur) {
        free(cur);
        errno = ELOOP;
    }
    return NULL;
}

/* The temporary name beside target: DIR/.NAME.tmp.XXXXXX, or DIR/.tmp.XXXXXX when that would
 * exceed the system's limits (so a long target still gets a temporary file, never one cut
 * short). Heap; NULL when out of memory. */
static char *temp_name(const char *target)
{
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = slash ? slash + 1 : target;
    size_t blen = strlen(base);
    if (dirlen + blen + 17 >= PATH_MAX || blen + 17 > NAME_MAX) blen = 0;
    char *tmp = malloc(dirlen + blen + 18);
    if (!tmp) return NULL;
    memcpy(tmp, target, dirlen);
    tmp[dirlen] = '.';
    memcpy(tmp + dirlen + 1, base, blen);
    strcpy(tmp + dirlen + 1 + blen, blen ? ".tmp.XXXXXX" : "tmp.XXXXXX");
    return tmp;
}

int atomicfile_open(atomicfile *a, const char *path)
{
    memset(a, 0, sizeof *a);
    if (!path || !*path) return fail(a, ENOENT);
    int fd;
    char *p = walk_links(path, &fd);
    if (!p) return fail(a, errno);
    if (fd >= 0) { /* our own stdout or stderr: write after what we printed, in one stream */
        a->target = p;
        fflush(stdout);
        fflush(stderr);
        int d = dup(fd);
        if (d < 0 || !(a->f = fdopen(d, "w"))) {
            int e = errno;
            if (d >= 0) close(d);
            return fail(a, e);
        }
        return 0;
    }
    struct stat st;
    mode_t mode;
    if (stat(p, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            free(p);
            return fail(a, EISDIR);
        }
        if (!S_ISREG(st.st_mode)) return open_direct(a, p);
        /* Replacing a read-only file by rename would succeed in a writable directory (and as
         * root always): refuse instead, as writing it in place would. */
        if ((st.st_mode & 0222) == 0 || access(p, W_OK) != 0) {
            free(p);
            return fail(a, EACCES);
        }
        mode = st.st_mode & 07777;
    } else if (errno == ENOENT) {
        mode = new_file_mode();
    } else {
        int e = errno;
        free(p);
        return fail(a, e);
    }
    a->target = p;
    a->tmp = temp_name(p);
    if (!a->tmp) return fail(a, ENOMEM);
    int tfd = mkstemp(a->tmp); /* O_CREAT | O_EXCL, mode 0600 */
    if (tfd < 0) return fail(a, errno);
    if (fchmod(tfd, mode) != 0 || !(a->f = fdopen(tfd, "w"))) {
        int e = errno;
        close(tfd);
        unlink(a->tmp);
        return fail(a, e);
    }
    return 0;
}

int atomicfile_commit(atomicfile *a)
{
    if (!a->f) return fail(a, EINVAL);
    int e = 0;
    errno = 0;
    if (fflush(a->f) != 0 || ferror(a->f)) e = errno ? errno : EIO;
    if (!e && a->tmp && fsync(fileno(a->f)) != 0) e = errno;
    if (fclose(a->f) != 0 && !e) e = errno;
    a->f = NULL;
    if (!e && a->tmp && rename(a->tmp, a->target) != 0) e = errno;
    if (e && a->tmp) unlink(a->tmp);
    if (e) return fail(a, e);
    release(a);
    return 0;
}

void atomicfile_abort(atomicfile *a)
{
    if (!a) return;
    if (a->f) fclose(a->f);
    if (a->tmp) unlink(a->tmp);
    release(a);
}

int atomicfile_write(const char *path, const void *data, size_t len)
{
    atomicfile a;
    if (atomicfile_open(&a, path) != 0) return -1;
    if (len && fwrite(data, 1, len, a.f) != len) {
        int e = errno ? errno : EIO;
        atomicfile_abort(&a);
        errno = e;
        return -1;
    }
    return atomicfile_commit(&a);
}
