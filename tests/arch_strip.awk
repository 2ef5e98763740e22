# arch_strip.awk -- strip(line): a C line with its comments, string and character literals
# blanked (a literal keeps its quotes), carrying /* ... */ across lines in `incomment`; so
# braces and names inside them do not count. With -v PRINT=1 it prints "FILE:LINE: text" for
# every line. Used by tests/arch.sh, alone and before tests/arch_funcs.awk.
FNR == 1 { incomment = 0 }
function strip(line,   out, n, i, c, two, q) {
    out = ""
    n = length(line)
    i = 1
    while (i <= n) {
        c = substr(line, i, 1)
        two = substr(line, i, 2)
        if (incomment) {
            if (two == "*/") { incomment = 0; i += 2 } else i++
            continue
        }
        if (two == "/*") { incomment = 1; i += 2; continue }
        if (two == "//") break
        if (c == "\"" || c == "'") {
            q = c
            i++
            while (i <= n && substr(line, i, 1) != q) i += substr(line, i, 1) == "\\" ? 2 : 1
            i++
            out = out q q
            continue
        }
        out = out c
        i++
    }
    return out
}
PRINT { print FILENAME ":" FNR ": " strip($0) }
