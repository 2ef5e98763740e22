#!/bin/sh
# arch_selftest.sh -- tests/arch.sh can fail: in a copy of src/, plant one violation of each rule
# and see arch.sh report it (a FAIL line naming the rule that the clean copy does not have),
# and see an initialised table and a plug-in family's cycle pass. Ends with "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.." || exit 2
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CC=${CC:-cc}

fresh() { rm -rf "$T/tree" "$T/obj"; mkdir -p "$T/tree" "$T/obj"; cp -r src "$T/tree/src"; }
# arch RUN-NAME: arch.sh on the copy; its FAIL lines in $T/RUN-NAME.
arch() { sh "$here/arch.sh" "$T/tree" "$T/obj" 2>&1 >/dev/null | grep '^FAIL' >"$T/$1"; }

fresh
arch clean
# Every violation is planted in one copy (each in its own file or rule, so none hides
# another) and arch.sh runs once; then each must show as a FAIL line the clean run lacks.
# planted NAME PATTERN: remember what to look for.
checks=""
planted() { printf '%s\t%s\n' "$1" "$2" >>"$T/expect"; }
: >"$T/expect"

echo '#include "report/report.h"' >>"$T/tree/src/core/memory.c"
planted upward 'src/core/memory.c:.*"report/report.h" is above core'

echo '#include "memory.h"' >>"$T/tree/src/core/comm.c"
planted nofolder 'src/core/comm.c:.*"memory.h" names no folder'

echo '#include "io/nosuch.h"' >>"$T/tree/src/report/report.c"
planted missing '"io/nosuch.h" does not exist'

echo '#include <gsl/gsl_rng.h>' >>"$T/tree/src/core/memory.c"
planted gsl 'core includes a library.*gsl/gsl_rng.h'

echo '#include <gsl/gsl_fit.h>' >>"$T/tree/src/io/runs.c"
planted gsl-io 'io includes GSL.*src/io/runs.c'

printf 'void *units_leak(void);\nvoid *units_leak(void) { return malloc(8); }\n' >>"$T/tree/src/core/units.c"
planted malloc 'core calls an allocator.*malloc'

printf 'int units_say(void);\nint units_say(void) { return printf("x"); }\n' >>"$T/tree/src/core/units.c"
planted printf 'core calls an allocator.*printf'


printf '#include "core/zz_b.h"\n' >"$T/tree/src/core/zz_a.h"
printf '#include "core/zz_a.h"\n' >"$T/tree/src/core/zz_b.h"
planted include-cycle 'headers included back.*core/zz_a.h'

# call cycles need objects: two files in io calling each other
printf 'int zz_b(int);\nint zz_a(int n);\nint zz_a(int n) { return n ? zz_b(n - 1) : 0; }\n' >"$T/tree/src/io/zz_a.c"
printf 'int zz_a(int);\nint zz_b(int n);\nint zz_b(int n) { return n ? zz_a(n - 1) : 1; }\n' >"$T/tree/src/io/zz_b.c"
mkdir -p "$T/obj/src/io"
$CC -c -o "$T/obj/src/io/zz_a.o" "$T/tree/src/io/zz_a.c" && $CC -c -o "$T/obj/src/io/zz_b.o" "$T/tree/src/io/zz_b.c" ||
    bad "cannot compile the planted call cycle with $CC"
planted call-cycle 'call cycles between files.*io/zz_'

echo '/* zero_stage */' >>"$T/tree/src/core/comm.c"
planted stage 'zero_stage outside.*src/core/comm.c'

awk 'BEGIN { for (i = 0; i < 801; i++) print "" }' >>"$T/tree/src/core/units.c"
planted file-size 'files over 800 lines: .*src/core/units.c'

{
    echo 'int units_long(int x);'
    echo 'int units_long(int x)'
    echo '{'
    awk 'BEGIN { for (i = 0; i < 99; i++) print "    x += 1; /* { */" }'
    echo '    return x;'
    echo '}'
} >>"$T/tree/src/core/units.c"
planted function-size 'functions over 100 lines: .*units_long (102 lines)'

{ printf '/* %0120d */\n' 0; cat src/analysis/calibrate.c; } >"$T/tree/src/analysis/calibrate.c"
planted width 'lines over 110 columns: src/analysis/calibrate.c:1 ('

arch planted
while IFS='	' read -r name pat; do
    if grep -- "$pat" "$T/planted" | grep -vqxF -f "$T/clean"; then ok
    else bad "planted $name: arch.sh did not report '$pat'"; fi
done <"$T/expect"
fresh

# What must pass: a comment or string naming malloc( is not a call, an initialised table of
# any length is data, and a call cycle inside a plug-in family (a registry and its
# descriptors) is allowed. One run; it must add no FAIL line to the clean run's.
printf '/* malloc( and printf( in a comment */\nstatic const char *units_msg = "call free(p)";\n' >>"$T/tree/src/core/units.c"
{
    echo 'static const int units_table[] = {'
    awk 'BEGIN { for (i = 0; i < 150; i++) print "    " i "," }'
    echo '};'
} >>"$T/tree/src/core/units.c"
printf 'int coll_zz(int);\nint collective_zz(int n);\nint collective_zz(int n) { return n ? coll_zz(n - 1) : 0; }\n' >"$T/tree/src/core/collective.c"
printf 'int collective_zz(int);\nint coll_zz(int n);\nint coll_zz(int n) { return n ? collective_zz(n - 1) : 1; }\n' >"$T/tree/src/core/coll_zz.c"
mkdir -p "$T/obj/src/core"
$CC -c -o "$T/obj/src/core/collective.o" "$T/tree/src/core/collective.c" &&
    $CC -c -o "$T/obj/src/core/coll_zz.o" "$T/tree/src/core/coll_zz.c" || bad "cannot compile the family's cycle"
arch benign
extra=$(grep -vxF -f "$T/clean" "$T/benign")
[ -z "$extra" ] && ok || bad "benign code refused: $extra"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
