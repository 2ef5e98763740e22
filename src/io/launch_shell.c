/* launch_shell.c -- a launch script's command words: the little of POSIX sh and bash it needs. */
#include "io/launch_shell.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS 512
#define MAX_STMT 4096 /* words in one statement (an array literal counts its elements) */
#define MAX_DEPTH 32  /* nested if blocks */
/* Bytes one expanded string may hold: a launch script's longest line is a few kB, but appends
 * that expand their own array (A+=(${A[@]})) double it each time. */
#define MAX_TEXT (1 << 20)

typedef struct var {
    char name[64];
    char *value;
} var;

typedef struct sh {
    const char *p, *end, *origin;
    int line;
    zs_error *err;
    var vars[MAX_VARS];
    int nvars;
    bool active[MAX_DEPTH], taken[MAX_DEPTH]; /* per open if: running now, a branch already ran */
    int depth;
    char **args; /* commands starting with "--", for a plain argument list */
    int nargs, capargs;
    shell_words *out;
    bool oom;
    bool too_long; /* an expansion passed MAX_TEXT (reported as oom is) */
} sh;

static bool running(const sh *s)
{
    for (int i = 0; i < s->depth; i++)
        if (!s->active[i]) return false;
    return true;
}

/* A growable string. */
typedef struct str {
    char *b;
    size_t n, cap;
} str;

static void put(sh *s, str *t, const char *c, size_t n)
{
    if (t->n + n > MAX_TEXT) {
        s->oom = s->too_long = true;
        return;
    }
    if (t->n + n + 1 > t->cap) {
        size_t cap = (t->n + n + 1) * 2 + 32;
        char *b = realloc(t->b, cap);
        if (!b) {
            s->oom = true;
            return;
        }
        t->b = b;
        t->cap = cap;
    }
    memcpy(t->b + t->n, c, n);
    t->n += n;
    t->b[t->n] = '\0';
}

static char *take(sh *s, str *t)
{
    if (!t->b) put(s, t, "", 0);
    return t->b;
}

static var *lookup(sh *s, const char *name, size_t n)
{
    for (int i = 0; i < s->nvars; i++)
        if (strlen(s->vars[i].name) == n && strncmp(s->vars[i].name, name, n) == 0) return &s->vars[i];
    return NULL;
}

static void assign(sh *s, const char *name, size_t n, char *value, bool append)
{
    var *v = lookup(s, name, n);
    if (!v && s->nvars < MAX_VARS && n < sizeof v->name) {
        v = &s->vars[s->nvars++];
        snprintf(v->name, sizeof v->name, "%.*s", (int)n, name);
        v->value = NULL;
    }
    if (!v) {
        free(value);
        return;
    }
    if (append && v->value && v->value[0]) {
        str t = {0};
        put(s, &t, v->value, strlen(v->value));
        put(s, &t, " ", 1);
        put(s, &t, value, strlen(value));
        free(value);
        value = take(s, &t);
    }
    free(v->value);
    v->value = value;
}

/* The end of a bracketed span starting at p (open/close, quotes skipped), or NULL. */
static const char *match(const char *p, const char *end, char open, char close)
{
    int depth = 0;
    for (; p < end; p++) {
        if (*p == '\\' && p + 1 < end)
            p++;
        else if (*p == '\'') {
            const char *q = memchr(p + 1, '\'', (size_t)(end - p - 1));
            if (!q) return NULL;
            p = q;
        } else if (*p == open)
            depth++;
        else if (*p == close && --depth == 0)
            return p;
    }
    return NULL;
}

static int fail(sh *s, const char *what)
{
    return zs_fail(s->err, ZS_ERR_INPUT, "%s: line %d: %s", s->origin, s->line, what);
}

static char *expand(sh *s, const char *raw, size_t n);

/* v where |v| <= 1e12, else 0 with *ok false: operands stay far from long long's range, so the
 * operators below never overflow. */
static long long arith_bound(long long v, bool *ok)
{
    if (v <= 1000000000000LL && v >= -1000000000000LL) return v;
    *ok = false;
    return 0;
}

/* Integer arithmetic: + - * / % and parentheses over decimal numbers (names already expanded). */
static long long arith_expr(const char **p, bool *ok);
static long long arith_atom(const char **p, bool *ok)
{
    while (isspace((unsigned char)**p)) (*p)++;
    if (**p == '(') {
        (*p)++;
        long long v = arith_bound(arith_expr(p, ok), ok);
        while (isspace((unsigned char)**p)) (*p)++;
        if (**p != ')')
            *ok = false;
        else
            (*p)++;
        return v;
    }
    if (**p == '-') {
        (*p)++;
        return -arith_atom(p, ok);
    }
    char *e;
    long long v = strtoll(*p, &e, 10);
    if (e == *p) *ok = false;
    *p = e;
    return arith_bound(v, ok);
}

static long long arith_term(const char **p, bool *ok)
{
    long long v = arith_atom(p, ok);
    for (;;) {
        while (isspace((unsigned char)**p)) (*p)++;
        char op = **p;
        if (op != '*' && op != '/' && op != '%') return v;
        (*p)++;
        long long r = arith_atom(p, ok);
        if (!*ok) { /* keep parsing, compute nothing: an operand may be out of range */
            v = 0;
            continue;
        }
        if (op != '*' && r == 0) {
            *ok = false;
            return 0;
        }
        /* |v r| within the bound, either sign (both operands are already within it) */
        if (op == '*' && r != 0 && (v < 0 ? -v : v) > 1000000000000LL / (r < 0 ? -r : r)) *ok = false;
        v = op == '*' ? (*ok ? v * r : 0) : op == '/' ? v / r : v % r;
    }
}

static long long arith_expr(const char **p, bool *ok)
{
    long long v = arith_term(p, ok);
    for (;;) {
        while (isspace((unsigned char)**p)) (*p)++;
        char op = **p;
        if (op != '+' && op != '-') return v;
        (*p)++;
        long long r = arith_term(p, ok);
        if (r > 1000000000000LL || r < -1000000000000LL || v > 1000000000000LL || v < -1000000000000LL)
            *ok = false;
        v = !*ok ? 0 : op == '+' ? v + r : v - r;
    }
}

/* ${...} with the braces' inside in [b, e). */
static void brace(sh *s, str *t, const char *b, const char *e)
{
    const char *q = b;
    while (q < e && (isalnum((unsigned char)*q) || *q == '_')) q++;
    var *v = lookup(s, b, (size_t)(q - b));
    const char *val = v && v->value ? v->value : "";
    if (q + 2 < e + 1 && q[0] == '[' && (q[1] == '@' || q[1] == '*')) q += 3;
    bool colon = q < e && *q == ':';
    char op = q + colon < e ? q[colon] : '\0';
    if (op == '-' || op == '=' || op == '+') {
        const char *w = q + colon + 1;
        bool set = colon ? val[0] != '\0' : v != NULL;
        if ((op == '+') == set) {
            char *d = expand(s, w, (size_t)(e - w));
            if (!d) return;
            put(s, t, d, strlen(d));
            if (op == '=' && !set)
                assign(s, b, (size_t)(q - b), d, false);
            else
                free(d);
            return;
        }
        if (op == '+') return;
    }
    put(s, t, val, strlen(val));
}

/* One $-expansion at *p (pointing past the '$') into t; *p moved past it. */
static void dollar(sh *s, str *t, const char **p, const char *end)
{
    const char *c = *p;
    if (c + 1 < end && c[0] == '(' && c[1] == '(') {
        const char *e = match(c, end, '(', ')');
        if (!e || e - c < 3) {
            s->oom = s->oom || false;
            *p = end;
            return;
        }
        char *in = expand(s, c + 2, (size_t)(e - 1 - (c + 2)));
        bool ok = in != NULL;
        const char *q = in ? in : "";
        long long v = ok ? arith_expr(&q, &ok) : 0;
        while (ok && isspace((unsigned char)*q)) q++;
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", v);
        if (ok && !*q) put(s, t, buf, strlen(buf));
        free(in);
        *p = e + 1;
    } else if (c < end && *c == '(') {
        const char *e = match(c, end, '(', ')');
        *p = e ? e + 1 : end; /* $(command): not run, nothing */
    } else if (c < end && *c == '{') {
        const char *e = match(c, end, '{', '}');
        if (!e) {
            *p = end;
            return;
        }
        brace(s, t, c + 1, e);
        *p = e + 1;
    } else if (c < end && (isalpha((unsigned char)*c) || *c == '_')) {
        const char *q = c;
        while (q < end && (isalnum((unsigned char)*q) || *q == '_')) q++;
        var *v = lookup(s, c, (size_t)(q - c));
        if (v && v->value) put(s, t, v->value, strlen(v->value));
        *p = q;
    } else if (c < end && (isdigit((unsigned char)*c) || *c == '@' || *c == '*' || *c == '#' || *c == '?'))
        *p = c + 1; /* positional and special parameters: unset */
    else
        put(s, t, "$", 1);
}

/* raw (n bytes) with quotes removed and $-expansions done; NULL when out of memory. */
static char *expand(sh *s, const char *raw, size_t n)
{
    str t = {0};
    const char *p = raw, *end = raw + n;
    bool dq = false;
    while (p < end && !s->oom) {
        if (*p == '\'' && !dq) {
            const char *q = memchr(p + 1, '\'', (size_t)(end - p - 1));
            q = q ? q : end;
            put(s, &t, p + 1, (size_t)(q - p - 1));
            p = q < end ? q + 1 : end;
        } else if (*p == '"') {
            dq = !dq;
            p++;
        } else if (*p == '\\' && p + 1 < end) {
            put(s, &t, p + 1, 1);
            p += 2;
        } else if (*p == '$') {
            p++;
            dollar(s, &t, &p, end);
        } else
            put(s, &t, p++, 1);
    }
    if (s->oom) {
        free(t.b);
        return NULL;
    }
    return take(s, &t);
}

/* The next raw word of the statement at s->p; NULL at the statement's end (a newline, ';' or
 * the text's end; a newline inside an array literal does not end it). */
static const char *word(sh *s, bool in_array, size_t *n)
{
    for (;;) {
        while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r')) s->p++;
        if (s->p + 1 < s->end && s->p[0] == '\\' && s->p[1] == '\n') {
            s->p += 2;
            s->line++;
            continue;
        }
        if (s->p < s->end && *s->p == '#') {
            while (s->p < s->end && *s->p != '\n') s->p++;
            continue;
        }
        if (in_array && s->p < s->end && *s->p == '\n') {
            s->p++;
            s->line++;
            continue;
        }
        break;
    }
    if (s->p >= s->end || *s->p == '\n' || *s->p == ';') return NULL;
    const char *b = s->p;
    while (s->p < s->end && !strchr(" \t\r\n;", *s->p)) {
        const char *e = NULL;
        if (*s->p == '\\' && s->p + 1 < s->end)
            e = s->p + 1;
        else if (*s->p == '\'' || *s->p == '"') {
            e = s->p + 1;
            while (e < s->end && *e != *s->p) e += *e == '\\' && *s->p == '"' ? 2 : 1;
        } else if (*s->p == '$' && s->p + 1 < s->end && (s->p[1] == '(' || s->p[1] == '{'))
            e = match(s->p + 1, s->end, s->p[1], s->p[1] == '(' ? ')' : '}');
        else if (*s->p == '(' && s->p > b && s->p[-1] == '=')
            break; /* NAME=( opens an array literal */
        else if (*s->p == ')' && in_array && s->p == b) {
            s->p++;
            break;
        }
        if (e && e >= s->end) return fail(s, "unbalanced quote or bracket"), NULL;
        if (e) {
            for (const char *q = s->p; q < e; q++) s->line += *q == '\n';
            s->p = e;
        }
        s->p++;
        if (in_array && s->p < s->end && *s->p == ')') break;
    }
    if (s->p < s->end && *s->p == '(' && s->p[-1] == '=') s->p++;
    *n = (size_t)(s->p - b);
    return b;
}

/* Expanded words of the raw words in [0, n), split at whitespace, appended to *out. */
static void split_into(sh *s, char *text, char ***out, int *n, int *cap)
{
    for (char *save = NULL, *w = strtok_r(text, " \t\n", &save); w && !s->oom;
         w = strtok_r(NULL, " \t\n", &save)) {
        if (*n + 1 >= *cap) {
            int c = *cap * 2 + 64;
            char **b = realloc(*out, (size_t)c * sizeof *b);
            if (!b) {
                s->oom = true;
                return;
            }
            *out = b;
            *cap = c;
        }
        (*out)[*n] = strdup(w);
        if (!(*out)[*n])
            s->oom = true;
        else
            (*n)++;
    }
}

/* [[ a == b ]], [ a != b ], -z a, -n a, joined by || and && (left to right). */
static bool condition(sh *s, char **w, int n)
{
    bool result = false, first = true;
    const char *joiner = "||";
    for (int i = 0; i < n;) {
        if (strcmp(w[i], "[[") && strcmp(w[i], "[")) {
            i++;
            continue;
        }
        int j = i + 1;
        while (j < n && strcmp(w[j], "]]") && strcmp(w[j], "]")) j++;
        char *a[3] = {NULL, NULL, NULL};
        int k = 0;
        for (int q = i + 1; q < j && k < 3; q++) a[k++] = expand(s, w[q], strlen(w[q]));
        bool v = false;
        if (k == 3 && (!strcmp(a[1], "==") || !strcmp(a[1], "=")))
            v = strcmp(a[0], a[2]) == 0;
        else if (k == 3 && !strcmp(a[1], "!="))
            v = strcmp(a[0], a[2]) != 0;
        else if (k == 2 && !strcmp(a[0], "-z"))
            v = a[1][0] == '\0';
        else if (k == 2 && !strcmp(a[0], "-n"))
            v = a[1][0] != '\0';
        else if (k == 1 && !strcmp(a[0], "-z"))
            v = true; /* [[ -z "" ]] after an empty expansion */
        for (int q = 0; q < k; q++) free(a[q]);
        result = first ? v : strcmp(joiner, "&&") == 0 ? result && v : result || v;
        first = false;
        i = j + 1;
        if (i < n && (!strcmp(w[i], "||") || !strcmp(w[i], "&&"))) joiner = w[i++];
    }
    return result;
}

/* if / elif / else / fi; true when the statement was one of them. */
static bool control(sh *s, char **w, int n)
{
    if (!strcmp(w[0], "if") && s->depth < MAX_DEPTH) {
        bool v = running(s) && condition(s, w + 1, n - 1);
        s->active[s->depth] = v;
        s->taken[s->depth++] = v;
    } else if (!strcmp(w[0], "elif") && s->depth > 0) {
        bool v = !s->taken[s->depth - 1] && condition(s, w + 1, n - 1);
        s->active[s->depth - 1] = v;
        s->taken[s->depth - 1] |= v;
    } else if (!strcmp(w[0], "else") && s->depth > 0) {
        s->active[s->depth - 1] = !s->taken[s->depth - 1];
        return n == 1;
    } else if (!strcmp(w[0], "fi") && s->depth > 0)
        s->depth--;
    else
        return false;
    return true;
}

/* NAME=value, NAME+=value or NAME=( elements ); true when w[0] is one. */
static bool assignment(sh *s, char **w, int n)
{
    const char *eq = strchr(w[0], '=');
    if (!eq || eq == w[0] || w[0][0] == '-') return false;
    const char *q = w[0];
    while (q < eq && (isalnum((unsigned char)*q) || *q == '_')) q++;
    bool append = q < eq && *q == '+' && q + 1 == eq;
    if (q != eq && !append) return false;
    size_t len = (size_t)(q - w[0]);
    if (strcmp(eq + 1, "(") == 0) {
        str t = {0};
        for (int i = 1; i < n && strcmp(w[i], ")"); i++) {
            char *e = expand(s, w[i], strlen(w[i]));
            if (!e) break;
            if (t.n) put(s, &t, " ", 1);
            put(s, &t, e, strlen(e));
            free(e);
        }
        assign(s, w[0], len, take(s, &t), append);
    } else {
        char *e = expand(s, eq + 1, strlen(eq + 1));
        if (e) assign(s, w[0], len, e, append);
    }
    return true;
}

/* Whether word ends in ".py" (the Python script a launcher runs). */
static bool script_word(const char *w)
{
    size_t n = strlen(w);
    return n > 3 && strcmp(w + n - 3, ".py") == 0;
}

/* Run one statement's raw words. */
static void statement(sh *s, char **w, int n)
{
    while (n > 0 &&
        (!strcmp(w[0], "then") || !strcmp(w[0], "do") || !strcmp(w[0], "done") || !strcmp(w[0], "{"))) {
        w++;
        n--;
    }
    if (n == 0 || control(s, w, n) || !running(s)) return;
    if (!strcmp(w[0], "export") || !strcmp(w[0], "local") || !strcmp(w[0], "declare") ||
        !strcmp(w[0], "readonly")) {
        while (n > 1 && w[1][0] == '-') w++, n--;
        w++, n--;
        if (n > 0) assignment(s, w, n);
        return;
    }
    if (assignment(s, w, n)) return;
    char **words = NULL;
    int m = 0, cap = 0;
    for (int i = 0; i < n && !s->oom; i++) {
        char *e = expand(s, w[i], strlen(w[i]));
        if (e) split_into(s, e, &words, &m, &cap);
        free(e);
    }
    int at = -1;
    for (int i = 0; i < m && at < 0; i++)
        if (script_word(words[i])) at = i;
    shell_words *o = s->out;
    if (at >= 0 && !o->script[0]) {
        const char *base = strrchr(words[at], '/');
        snprintf(o->script, sizeof o->script, "%s", base ? base + 1 : words[at]);
        o->word = words;
        o->n = m;
        o->args_at = at + 1;
        return;
    }
    if (m > 0 && strncmp(words[0], "--", 2) == 0)
        for (int i = 0; i < m && !s->oom; i++) { split_into(s, words[i], &s->args, &s->nargs, &s->capargs); }
    for (int i = 0; i < m; i++) free(words[i]);
    free(words);
}

/* The raw words of the statement at s->p into w (at most MAX_STMT); -1 at the text's end. */
static int read_statement(sh *s, char **w)
{
    while (s->p < s->end && (*s->p == '\n' || *s->p == ';')) s->line += *s->p++ == '\n';
    if (s->p >= s->end) return -1;
    int n = 0;
    bool in_array = false;
    size_t len;
    for (const char *b; n < MAX_STMT && (b = word(s, in_array, &len)) != NULL;) {
        w[n] = strndup(b, len);
        if (!w[n]) {
            s->oom = true;
            break;
        }
        in_array =
            (in_array && strcmp(w[n], ")") != 0) || (len > 2 && b[len - 1] == '(' && b[len - 2] == '=');
        n++;
    }
    return n;
}

int shell_words_read(const char *text, size_t len, const char *origin, shell_words *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    sh *s = calloc(1, sizeof *s);
    char **w = malloc(MAX_STMT * sizeof *w);
    if (!s || !w) {
        free(s);
        free(w);
        return zs_fail(err, ZS_ERR_INPUT, "%s: out of memory", origin);
    }
    *s = (sh){.p = text, .end = text + len, .origin = origin, .line = 1, .err = err, .out = out};
    int n;
    while (!s->oom && err->code == ZS_OK && (n = read_statement(s, w)) >= 0) {
        if (err->code == ZS_OK) statement(s, w, n);
        for (int i = 0; i < n; i++) free(w[i]);
    }
    /* A configuration script that only assigns (MODEL_ARGS=" --num-layers 32 ..."): the flags
     * its variables hold. */
    bool assigns_only = !out->script[0] && s->nargs == 0;
    for (int i = 0; assigns_only && i < s->nvars && !s->oom; i++) {
        const char *v = s->vars[i].value ? s->vars[i].value + strspn(s->vars[i].value, " \t\n") : "";
        char *copy = strncmp(v, "--", 2) == 0 ? strdup(v) : NULL;
        if (copy) split_into(s, copy, &s->args, &s->nargs, &s->capargs);
        free(copy);
    }
    if (!out->script[0]) {
        out->word = s->args;
        out->n = s->nargs;
        s->args = NULL;
    }
    for (int i = 0; i < s->nargs && s->args; i++) free(s->args[i]);
    free(s->args);
    for (int i = 0; i < s->nvars; i++) free(s->vars[i].value);
    bool oom = s->oom, too_long = s->too_long;
    free(s);
    free(w);
    if (err->code == ZS_OK && oom)
        zs_fail(err, ZS_ERR_INPUT,
            too_long ? "%s: an expansion grows past 1 MiB (a variable that appends itself?)"
                     : "%s: out of memory",
            origin);
    if (err->code != ZS_OK) shell_words_free(out);
    return err->code;
}

void shell_words_free(shell_words *w)
{
    for (int i = 0; i < w->n; i++) free(w->word[i]);
    free(w->word);
    memset(w, 0, sizeof *w);
}
