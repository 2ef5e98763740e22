#!/bin/sh
# arch.sh -- the architecture rules the README states, checked on a source tree.
#
# src/ is grouped by layer: core (the pure model), io (files), analysis (searches and fits over
# the core), report (tables, JSON, CSV, explain, charts), cmd (main and the commands), api (the
# library's request interface); src/bench
# is zerobench, a program of its own. The rules:
#   layers     a file includes only its own folder and the folders before it, and every quoted
#              include names its folder ("core/memory.h"), so the direction is visible
#   libraries  core includes no third-party or system I/O header (cJSON, GSL, pthread, libyaml,
#              libcurl, libmicrohttpd, unistd, dirent, sys/*); io and core include no GSL
#   pure core  src/core calls no allocator, file, environment, process or thread function
#   cycles     no header reaches itself through its includes; no call cycle between object
#              files (nm, when the objects are built) outside the declared plug-in families
#   stages     only the strategy and framework files name a ZeRO stage (zero_stage)
#   size       no file over 800 lines, no function over 100 (brace to brace; initialised tables
#              are not functions; EXEMPT below says why any other is), no line over 110 columns
#
# Usage: sh tests/arch.sh [ROOT [OBJDIR]]   (default: this repository and its build/ objects)
# tests/arch_selftest.sh plants a violation of each rule in a copy and sees this script fail.
# Ends with "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ROOT=${1:-$here/..}
cd "$ROOT" || exit 2
OBJDIR=${2:-build}
STRIP_AWK=$here/arch_strip.awk
FUNCS_AWK=$here/arch_funcs.awk
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
tmp=$(mktemp -d)
trap '[ -n "$ARCH_KEEP" ] || rm -rf "$tmp"' EXIT

LAYERS="core io analysis report cmd api serve"
MAX_FILE_LINES=800
MAX_FUNC_LINES=100
MAX_COLUMNS=110
# Functions allowed past MAX_FUNC_LINES, as "file:function" (why: beside each).
EXEMPT=""
# Plug-in families: a registry and the descriptors it lists call each other (the registry's
# table names the descriptors; the descriptors call the shared helpers), as nccl-tests'
# collectives do. A call cycle is allowed only inside one family.
FAMILIES="
core/collective core/coll_*
core/mixer core/mix_*
core/strategy core/strat_* core/zero_common core/comm
report/plot report/plot_*
cmd/main cmd/cmd_*
"

files=""
for l in $LAYERS; do files="$files $(ls src/$l/*.c src/$l/*.h 2>/dev/null)"; done

# --- layers: includes by folder ------------------------------------------------------------
# One line per file that breaks the rule; each file that keeps it counts as a passed check.
awk -v layers="$LAYERS" '
    BEGIN { n = split(layers, l, " "); for (i = 1; i <= n; i++) rank[l[i]] = i }
    FNR == 1 { if (prev != "") report(); prev = FILENAME; msg = ""
               d = FILENAME; sub(/^src\//, "", d); sub(/\/.*/, "", d); me = rank[d] }
    /^[ \t]*#[ \t]*include[ \t]*"/ {
        inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
        if (inc !~ /\//) { msg = msg "; \"" inc "\" names no folder"; next }
        d = inc; sub(/\/.*/, "", d)
        if (!(d in rank)) msg = msg "; \"" inc "\" is not in a layer folder"
        else if (rank[d] > me) msg = msg "; \"" inc "\" is above " l[me] " (order: " layers ")"
        else if ((getline junk < ("src/" inc)) < 0) msg = msg "; \"" inc "\" does not exist"
        else close("src/" inc) }
    function report() { if (msg != "") print prev ":" substr(msg, 2); else print "ok" }
    END { if (prev != "") report() }' $files >"$tmp/layers"
while read -r line; do
    if [ "$line" = ok ]; then ok; else bad "$line"; fi
done <"$tmp/layers"

# --- libraries by layer ----------------------------------------------------------------------
sysinc() { sed -n 's/^[ \t]*#[ \t]*include[ \t]*<\([^>]*\)>.*/\1/p' "$@"; }
hits=$(for f in src/core/*.[ch]; do
    for h in $(sysinc "$f"); do
        case $h in
        cjson/* | gsl/* | pthread.h | yaml.h | curl/* | microhttpd.h | unistd.h | dirent.h | fcntl.h | sys/*)
            echo "$f <$h>" ;;
        esac
    done
done | tr '\n' ' ')
[ -z "$hits" ] && ok || bad "core includes a library or system I/O header: $hits"
hits=$(for f in src/io/*.[ch]; do
    for h in $(sysinc "$f"); do case $h in gsl/*) echo "$f <$h>" ;; esac; done
done | tr '\n' ' ')
[ -z "$hits" ] && ok || bad "io includes GSL (fits belong to analysis): $hits"

# --- the pure core: no allocation, I/O, environment, processes or threads --------------------
# Comments and string literals are blanked first (arch_strip.awk), so a message may name one.
impure='(malloc|calloc|realloc|free|strdup|strndup|fopen|fclose|fread|fwrite|fgets|fputs|fputc|fprintf|printf|vprintf|vfprintf|puts|putchar|perror|getenv|setenv|exit|_Exit|abort|system|popen|open|close|read|write|time|clock|clock_gettime|pthread_[a-z_]+)[ \t]*\('
hits=$(awk -v PRINT=1 -f "$STRIP_AWK" src/core/*.c src/core/*.h |
    grep -E "^[^:]*:[0-9]*: .*(^|[^A-Za-z0-9_.>])$impure" | head -5 | tr '\n' ';')
[ -z "$hits" ] && ok || bad "core calls an allocator or I/O function: $hits"

# --- cycles ------------------------------------------------------------------------------------
# Header includes, resolved to paths under src/; a header that reaches itself is a cycle.
for f in $files; do
    for inc in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\/[^"]*\)".*/\1/p' "$f"); do
        echo "${f#src/} $inc"
    done
done >"$tmp/inc"
cyc=$(awk '
    { e[$1] = e[$1] " " $2 }
    function reach(s, n,   k, a, i) {
        split(e[n], a, " ")
        for (i in a) { k = a[i]; if (k == s) return 1; if (!(k in seen)) { seen[k] = 1; if (reach(s, k)) return 1 } }
        return 0 }
    END { for (h in e) if (h ~ /\.h$/) { delete seen; if (reach(h, h)) print h } }' "$tmp/inc" | sort | tr '\n' ' ')
[ -z "$cyc" ] && ok || bad "headers included back through their own includes: $cyc"

# Calls between object files: A -> B when A's object uses a symbol B's object defines.
family_of() {
    echo "$FAMILIES" | awk -v m="$1" 'NF { for (i = 1; i <= NF; i++) { p = $i; gsub(/\*/, ".*", p); if (m ~ "^" p "$") { print NR; exit } } }'
}
objs=""
for f in $(ls src/*/*.c 2>/dev/null); do
    [ -f "$OBJDIR/${f%.c}.o" ] && objs="$objs $OBJDIR/${f%.c}.o"
done
if [ -z "$objs" ]; then
    echo "arch.sh: no objects under $OBJDIR/src: call cycles not checked (build first)"
else
    # readelf, not nm: it reads the objects' own symbol tables without the LTO plugin.
    readelf -sW $objs 2>/dev/null | awk -v dir="$OBJDIR/src/" '
        /^File: / { m = $2; sub("^" dir, "", m); sub(/\.o$/, "", m); next }
        $5 == "GLOBAL" && $8 != "" { print ($7 == "UND" ? "U" : "D"), m, $8 }' >"$tmp/sym"
    awk 'NR == FNR { if ($1 == "D") def[$3] = $2; next }
         $1 == "U" && ($3 in def) && def[$3] != $2 { print $2, def[$3] }' "$tmp/sym" "$tmp/sym" |
        sort -u >"$tmp/calls"
    # strongly connected groups of files, each printed as one line
    awk '{ e[$1] = e[$1] " " $2; n[$1]; n[$2] }
         function reach(s, t,   k, a, i) {
             if (s == t) return 1
             split(e[s], a, " ")
             for (i in a) { k = a[i]; if (!(k in vis)) { vis[k] = 1; if (reach(k, t)) return 1 } }
             return 0 }
         END { for (x in n) { if (x in done) continue; g = x
               for (y in n) if (y != x && !(y in done)) { delete vis; if (reach(x, y)) { delete vis; if (reach(y, x)) { g = g " " y; done[y] } } }
               done[x]; if (g != x) print g } }' "$tmp/calls" >"$tmp/scc"
    cyc=""
    while read -r group; do
        fam=""
        same=yes
        for m in $group; do
            fm=$(family_of "$m")
            [ -z "$fam" ] && fam=${fm:-none}
            [ "${fm:-none}" = "$fam" ] && [ "$fam" != none ] || same=no
        done
        [ $same = yes ] || cyc="$cyc [$group]"
    done <"$tmp/scc"
    [ -z "$cyc" ] && ok || bad "call cycles between files (outside a declared plug-in family):$cyc"
fi

# --- stage numbers ------------------------------------------------------------------------------
# src/io/launchcfg.c is excepted: accelerate's YAML key is literally deepspeed_config.zero_stage,
# read as text and mapped to a strategy name there, with no stage logic of its own.
hits=$(grep -ln "zero_stage" src/*/*.c src/*/*.h 2>/dev/null |
    grep -v -e '^src/core/strat_' -e '^src/core/fw_' -e '^src/core/strategy\.' -e '^src/core/framework\.' \
        -e '^src/io/launchcfg\.c$' | tr '\n' ' ')
[ -z "$hits" ] && ok || bad "zero_stage outside strategy/framework files: $hits"

# --- size: files, functions, lines ---------------------------------------------------------------
all=$(ls src/*/*.c src/*/*.h 2>/dev/null)
long=$(wc -l $all | awk -v max=$MAX_FILE_LINES '$2 != "total" && $1 > max { printf "%s (%d) ", $2, $1 }')
[ -z "$long" ] && ok || bad "files over $MAX_FILE_LINES lines: $long"
long=$(awk -f "$STRIP_AWK" -f "$FUNCS_AWK" $(ls src/*/*.c) | awk -v max=$MAX_FUNC_LINES -v ex="$EXEMPT" '
    BEGIN { split(ex, a, " "); for (i in a) skip[a[i]] = 1 }
    $4 > max && !(($1 ":" $3) in skip) { printf "%s:%s %s (%d lines); ", $1, $2, $3, $4 }')
[ -z "$long" ] && ok || bad "functions over $MAX_FUNC_LINES lines: $long"
wide=$(awk -v max=$MAX_COLUMNS '{ gsub(/\t/, "    ") } length > max { printf "%s:%d (%d); ", FILENAME, FNR, length }' $all |
    head -c 600)
[ -z "$wide" ] && ok || bad "lines over $MAX_COLUMNS columns: $wide"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
