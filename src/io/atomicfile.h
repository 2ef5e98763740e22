/* atomicfile.h -- writing an output file whole or not at all (calibrate -o, charts, zerobench -J). */
#ifndef ZS_ATOMICFILE_H
#define ZS_ATOMICFILE_H

#include <stddef.h>
#include <stdio.h>

/* An output being written. A regular file (or a new one) is written to a temporary file made
 * with mkstemp (O_CREAT|O_EXCL, so nothing planted at its name is followed) in the target's
 * directory and renamed over the target on commit; the temporary path is allocated, never
 * truncated. A device, FIFO or socket (/dev/null, a named pipe) is written directly, without a
 * rename, so it is never replaced by a regular file; a path naming the process's own stream
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, directly or through symlinks) is
 * written through that descriptor, after what was printed there. A symlink to a regular file is
 * followed: the file it points to is replaced and the link kept (a dangling one is replaced).
 * An existing regular file keeps its permission bits; a read-only one is refused. */
typedef struct atomicfile {
    FILE *f;      /* write the contents here */
    char *tmp;    /* the temporary file (heap); NULL when writing the target directly */
    char *target; /* the file that receives the contents (heap) */
} atomicfile;

/* Start writing path. Returns 0, or -1 with errno set and *a empty: EISDIR for a directory,
 * EACCES for an existing read-only file (or an unwritable directory), ENAMETOOLONG, ENOMEM,
 * and whatever stat, realpath, mkstemp or open report. Never prints. */
int atomicfile_open(atomicfile *a, const char *path);

/* Finish: flush, sync and close, then rename the temporary file over the target. Returns 0, or
 * -1 with errno set after removing the temporary file (the target is left as it was; a device
 * or FIFO may have received part of the data). Releases *a either way. */
int atomicfile_commit(atomicfile *a);

/* Give up: close and remove the temporary file; the target is untouched. NULL-safe, never
 * fails; releases *a. */
void atomicfile_abort(atomicfile *a);

/* Write len bytes of data to path whole or not at all (open, write, commit). Returns 0, or -1
 * with errno set as above. */
int atomicfile_write(const char *path, const void *data, size_t len);

#endif
