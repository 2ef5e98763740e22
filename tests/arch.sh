#!/bin/sh
# arch.sh -- the architecture rules the README states, checked on the source tree:
# the pure core includes no CLI, report, plot, cJSON or GSL header (directly or through another
# header), no header includes one that includes it back, only strategy and framework files
# name a ZeRO stage, and no source file in src/ passes 800 lines. Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 2
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# Headers a header includes (quoted includes only), transitively.
includes() {
    seen=""
    todo="$1"
    while [ -n "$todo" ]; do
        set -- $todo
        h=$1
        shift
        todo="$*"
        case " $seen " in *" $h "*) continue ;; esac
        seen="$seen $h"
        [ -f "src/$h" ] || continue
        for n in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "src/$h"); do todo="$todo $n"; done
        for n in $(sed -n 's/^#include <\(cjson\|gsl\)\/.*/\1/p' "src/$h"); do seen="$seen <$n>"; done
    done
    echo "$seen"
}

core=$(cd src && ls core/*.h)
for h in $core; do
    inc=$(includes "$h")
    bad_inc=""
    for x in cmd/cli.h cmd/setup.h io/dsconfig.h report/report.h report/plot.h "<cjson>" "<gsl>"; do
        case " $inc " in *" $x "*) bad_inc="$bad_inc $x" ;; esac
    done
    [ -z "$bad_inc" ] && ok || bad "core header $h includes$bad_inc"
done
# No cycles: a header never reaches itself.
for f in src/*/*.h; do
    h=${f#src/}
    direct=$(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
    cyc=""
    for d in $direct; do
        case " $(includes "$d") " in *" $h "*) cyc="$cyc $d" ;; esac
    done
    [ -z "$cyc" ] && ok || bad "$h is included back by$cyc"
done
# Only strategy and framework definitions know stage numbers.
hits=$(grep -ln "zero_stage" src/*/*.c src/*/*.h 2>/dev/null | grep -v -e '^src/core/strat_' -e '^src/core/fw_' -e '^src/core/strategy\.' -e '^src/core/framework\.' || true)
[ -z "$hits" ] && ok || bad "zero_stage outside strategy/framework files: $hits"
# No source file in src/ longer than 800 lines.
long=$(wc -l src/*/*.c src/*/*.h | awk '$2 != "total" && $1 > 800 {print $2 " (" $1 ")"}')
[ -z "$long" ] && ok || bad "files over 800 lines: $long"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
