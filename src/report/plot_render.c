/* plot_render.c -- a chart's private directory, the gnuplot run inside it, the all-or-none commit, signal
 * clean-up. */
#include "report/plot_stage.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/atomicfile.h"

/* The extensions a stage may hold; clean-up removes each. */
static const char *const stage_ext[] = {"dat", "gp", "png", "svg", "log"};
#define N_EXT (int)(sizeof stage_ext / sizeof stage_ext[0])

/* ---- signal clean-up: what a handler may touch (async-signal-safe calls only) ------------- */

static const int clean_sigs[] = {SIGINT, SIGTERM, SIGHUP};
#define N_SIGS (int)(sizeof clean_sigs / sizeof clean_sigs[0])
static struct sigaction clean_old[N_SIGS];
static bool clean_armed[N_SIGS];
static char clean_paths[N_EXT][4200]; /* the stage's files */
static char clean_dir[4096];          /* the stage itself */
static volatile pid_t clean_child;    /* gnuplot while it runs; 0 otherwise */

static void clean_now(void)
{
    pid_t child = clean_child;
    if (child > 0) {
        kill(child, SIGTERM);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        clean_child = 0;
    }
    for (int i = 0; i < N_EXT; i++)
        if (clean_paths[i][0]) unlink(clean_paths[i]);
    if (clean_dir[0]) rmdir(clean_dir);
}

static void on_signal(int sig)
{
    clean_now();
    for (int i = 0; i < N_SIGS; i++)
        if (clean_sigs[i] == sig && clean_armed[i]) sigaction(sig, &clean_old[i], NULL);
    raise(sig);
}

/* Handlers for the signals that are not ignored (nohup's SIGHUP stays ignored). */
static void clean_arm(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_SIGS; i++) sigaddset(&sa.sa_mask, clean_sigs[i]);
    for (int i = 0; i < N_SIGS; i++) {
        clean_armed[i] = false;
        if (sigaction(clean_sigs[i], NULL, &clean_old[i]) != 0 || clean_old[i].sa_handler == SIG_IGN)
            continue;
        clean_armed[i] = sigaction(clean_sigs[i], &sa, NULL) == 0;
    }
}

static void clean_disarm(void)
{
    for (int i = 0; i < N_SIGS; i++)
        if (clean_armed[i]) sigaction(clean_sigs[i], &clean_old[i], NULL);
    memset(clean_armed, 0, sizeof clean_armed);
    clean_dir[0] = '\0';
    for (int i = 0; i < N_EXT; i++) clean_paths[i][0] = '\0';
}

static void block_sigs(int how, sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < N_SIGS; i++) sigaddset(&set, clean_sigs[i]);
    sigprocmask(how, &set, old);
}

/* ---- the stage ------------------------------------------------------------------------------ */

static void stage_path(const plot_stage *st, const char *ext, char *out, size_t len)
{
    snprintf(out, len, "%s/%s.%s", st->tmp, st->name, ext);
}

static void final_path(const plot_stage *st, const char *ext, char *out, size_t len)
{
    snprintf(out, len, "%s/%s.%s", st->dir, st->name, ext);
}

int plot_stage_open(plot_stage *st, const char *dir, const char *name, zs_error *err)
{
    memset(st, 0, sizeof *st);
    if (snprintf(st->dir, sizeof st->dir, "%s", dir) >= (int)sizeof st->dir ||
        snprintf(st->name, sizeof st->name, "%s", name) >= (int)sizeof st->name ||
        snprintf(st->tmp, sizeof st->tmp, "%s/.%s.tmp.%ld", dir, name, (long)getpid()) >=
            (int)sizeof st->tmp - 16)
        return zs_fail(err, ZS_ERR_IO, "%s: path too long", dir);
    /* The handler reads these: fill them with the signals blocked. */
    sigset_t old;
    block_sigs(SIG_BLOCK, &old);
    snprintf(clean_dir, sizeof clean_dir, "%s", st->tmp);
    for (int i = 0; i < N_EXT; i++) stage_path(st, stage_ext[i], clean_paths[i], sizeof clean_paths[i]);
    clean_arm();
    sigprocmask(SIG_SETMASK, &old, NULL);
    int made = mkdir(st->tmp, 0700);
    if (made != 0 && errno == EEXIST) {
        /* Left by a process of the same id that was killed outright (SIGKILL): ours to clear. */
        for (int i = 0; i < N_EXT; i++) unlink(clean_paths[i]);
        rmdir(st->tmp);
        made = mkdir(st->tmp, 0700);
    }
    if (made != 0) {
        int e = errno;
        clean_disarm();
        st->tmp[0] = '\0';
        return zs_fail(err, ZS_ERR_IO, "%s: cannot write in the output directory: %s", dir, strerror(e));
    }
    return ZS_OK;
}

FILE *plot_stage_file(const plot_stage *st, const char *ext, zs_error *err)
{
    char path[4200];
    stage_path(st, ext, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

int plot_stage_file_close(const plot_stage *st, FILE *f, const char *ext, zs_error *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (!bad) return ZS_OK;
    char path[4200];
    final_path(st, ext, path, sizeof path);
    return zs_fail(err, ZS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
}

void plot_stage_close(plot_stage *st)
{
    if (st->tmp[0]) {
        char path[4200];
        for (int i = 0; i < N_EXT; i++) {
            stage_path(st, stage_ext[i], path, sizeof path);
            unlink(path);
        }
        rmdir(st->tmp);
        st->tmp[0] = '\0';
    }
    sigset_t old;
    block_sigs(SIG_BLOCK, &old);
    clean_disarm();
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Append the file at path to f. */
static int copy_into(const char *path, FILE *f, const char *final, zs_error *err)
{
    FILE *in = fopen(path, "rb");
    if (!in) return zs_fail(err, ZS_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, f) != k) break;
    int bad = ferror(in) || ferror(f);
    fclose(in);
    return bad ? zs_fail(err, ZS_ERR_IO, "%s: write failed: %s", final, strerror(errno)) : ZS_OK;
}

/* Replace each final[i] by the contents of tmp[i], all or none, through the shared atomicfile
 * module: every target is opened first (a read-only one is refused before any is replaced; a
 * writable one keeps its permission bits), then filled, then committed, with the clean-up
 * signals held off so that a signal cannot stop it half-way. The one place plot replaces files. */
static int replace_files(char (*tmp)[4200], char (*final)[4200], int n, zs_error *err)
{
    atomicfile a[4];
    int opened = 0, rc = ZS_OK;
    sigset_t old;
    block_sigs(SIG_BLOCK, &old);
    for (; opened < n; opened++) {
        if (atomicfile_open(&a[opened], final[opened]) == 0) continue;
        int e = errno;
        struct stat st;
        if (e == EACCES && stat(final[opened], &st) == 0 && S_ISREG(st.st_mode))
            rc = zs_fail(err, ZS_ERR_IO,
                "%s: exists and is read-only; not replaced (make it writable or choose another -o)",
                final[opened]);
        else
            rc = zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", final[opened], strerror(e));
        break;
    }
    for (int i = 0; !rc && i < n; i++) rc = copy_into(tmp[i], a[i].f, final[i], err);
    for (int i = 0; i < opened; i++) {
        if (rc)
            atomicfile_abort(&a[i]);
        else if (atomicfile_commit(&a[i]) != 0)
            rc = zs_fail(err, ZS_ERR_IO, "%s: write failed: %s", final[i], strerror(errno));
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int plot_stage_commit(const plot_stage *st, const plot_options *o, bool drawn, zs_error *err)
{
    char tmp[4][4200], final[4][4200];
    const char *ext[4];
    int n = 0;
    ext[n++] = "dat";
    ext[n++] = "gp";
    if (drawn && o->png) ext[n++] = "png";
    if (drawn && o->svg) ext[n++] = "svg";
    for (int i = 0; i < n; i++) {
        stage_path(st, ext[i], tmp[i], sizeof tmp[i]);
        final_path(st, ext[i], final[i], sizeof final[i]);
    }
    return replace_files(tmp, final, n, err);
}

/* ---- gnuplot ------------------------------------------------------------------------------- */

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool plot_find_gnuplot(char *path, size_t len)
{
    const char *want = getenv("GNUPLOT");
    if (!want || !*want) want = "gnuplot";
    snprintf(path, len, "%s", want);
    if (strchr(want, '/')) return executable(want);
    const char *pathvar = getenv("PATH");
    if (!pathvar) return false;
    char dir[4096];
    for (const char *p = pathvar; *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n < sizeof dir) {
            memcpy(dir, p, n);
            dir[n] = '\0';
            char cand[8192];
            snprintf(cand, sizeof cand, "%s/%s", n ? dir : ".", want);
            if (executable(cand)) {
                if (snprintf(path, len, "%s", cand) < (int)len) return true;
            }
        }
        p += n;
        if (*p == ':') p++;
    }
    snprintf(path, len, "%s", want);
    return false;
}

/* The first line of gnuplot's log that says what went wrong (or the first line at all). */
static void first_error(const char *log, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(log, "r");
    if (!f) return;
    char line[512], first[512] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) continue;
        if (!first[0]) snprintf(first, sizeof first, "%s", p);
        if (strstr(p, "rror") || strstr(p, "annot") || strstr(p, "not found")) {
            snprintf(out, len, "%.300s", p);
            fclose(f);
            return;
        }
    }
    fclose(f);
    snprintf(out, len, "%.300s", first);
}

/* Start gnuplot in the stage with stderr to fd; the child's pid, or -1. */
static pid_t spawn(const plot_stage *st, const char *gnuplot, char *const argv[], int fd)
{
    sigset_t old;
    block_sigs(SIG_BLOCK, &old);
    pid_t child = fork();
    if (child == 0) {
        /* Our handlers must not run in the child: default actions, then the old mask. */
        for (int i = 0; i < N_SIGS; i++)
            if (clean_armed[i]) sigaction(clean_sigs[i], &clean_old[i], NULL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        dup2(fd, 2);
        if (chdir(st->tmp) != 0) _exit(126);
        execvp(gnuplot, argv);
        _exit(127);
    }
    if (child > 0) clean_child = child;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return child;
}

int plot_stage_render(const plot_stage *st, const char *gnuplot, const plot_options *o, zs_error *err)
{
    const char *name = st->name;
    char script[128], vars[512], log[4200];
    snprintf(script, sizeof script, "%s.gp", name);
    snprintf(vars, sizeof vars, "zs_png='%s.png'; zs_svg='%s.svg'", name, name);
    stage_path(st, "log", log, sizeof log);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) return zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", log, strerror(errno));
    /* execvp takes char *const argv[]; the union hands it the name without casting const away. */
    union {
        const char *in;
        char *out;
    } prog = {gnuplot};
    char *argv[] = {prog.out, "-e", vars, script, NULL};
    pid_t child = spawn(st, gnuplot, argv, fd);
    int e = errno;
    close(fd);
    if (child < 0) return zs_fail(err, ZS_ERR_IO, "cannot start gnuplot: %s", strerror(e));
    int status = 0;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) {
            status = -1;
            break;
        }
    clean_child = 0;
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            return zs_fail(err, ZS_ERR_IO, "cannot run %s", gnuplot);
        char why[400];
        first_error(log, why, sizeof why);
        return zs_fail(err, ZS_ERR_IO, "gnuplot failed on %s/%s (nothing of that chart replaced): %s",
            st->dir, script, why[0] ? why : "no message");
    }
    const char *ext[2] = {o->png ? "png" : NULL, o->svg ? "svg" : NULL};
    for (int i = 0; i < 2; i++) {
        char path[4200];
        struct stat sb;
        if (!ext[i]) continue;
        stage_path(st, ext[i], path, sizeof path);
        if (stat(path, &sb) != 0 || sb.st_size == 0)
            return zs_fail(
                err, ZS_ERR_IO, "gnuplot wrote no %s for %s/%s", i ? "SVG" : "PNG", st->dir, script);
    }
    return ZS_OK;
}
