/* atomicfile.c -- writing an output file whole or not at all: mkstemp beside the target, then
 * rename; devices and FIFOs written in place. */
#define _DEFAULT_SOURCE /* realpath, mkstemp, fsync, fchmod */
#include "atomicfile.h"

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
static int open_direct(atomicfile *a, const char *path)
{
    a->target = strdup(path);
    if (!a->target) return fail(a, ENOMEM);
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

int atomicfile_open(atomicfile *a, const char *path)
{
    memset(a, 0, sizeof *a);
    if (!path || !*path) return fail(a, ENOENT);
    struct stat st, lst;
    mode_t mode;
    if (stat(path, &st) == 0) { /* follows a symlink */
        if (S_ISDIR(st.st_mode)) return fail(a, EISDIR);
        if (!S_ISREG(st.st_mode)) return open_direct(a, path);
        /* Replacing a read-only file by rename would succeed in a writable directory (and as
         * root always): refuse instead, as writing it in place would. */
        if ((st.st_mode & 0222) == 0 || access(path, W_OK) != 0) return fail(a, EACCES);
        mode = st.st_mode & 07777;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) a->target = realpath(path, NULL);
        else a->target = strdup(path);
    } else if (errno == ENOENT) {
        /* New (or a dangling symlink, which the rename replaces rather than follows). */
        mode = new_file_mode();
        a->target = strdup(path);
    } else {
        return fail(a, errno);
    }
    if (!a->target) return fail(a, errno ? errno : ENOMEM);
    /* DIR/.NAME.tmp.XXXXXX beside the target, allocated to fit: a long path is never cut
     * short (a truncated name could be the target itself). */
    const char *slash = strrchr(a->target, '/');
    size_t dirlen = slash ? (size_t)(slash - a->target) + 1 : 0;
    const char *base = slash ? slash + 1 : a->target;
    size_t n = dirlen + 1 + strlen(base) + sizeof ".tmp.XXXXXX";
    a->tmp = malloc(n);
    if (!a->tmp) return fail(a, ENOMEM);
    memcpy(a->tmp, a->target, dirlen);
    a->tmp[dirlen] = '.';
    strcpy(a->tmp + dirlen + 1, base);
    strcat(a->tmp, ".tmp.XXXXXX");
    int fd = mkstemp(a->tmp); /* O_CREAT | O_EXCL, mode 0600 */
    if (fd < 0) return fail(a, errno);
    if (fchmod(fd, mode) != 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
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
