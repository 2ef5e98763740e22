# arch_funcs.awk -- list every C function definition as "FILE LINE NAME LENGTH" (lines from
# its opening brace to its closing one). Comments, strings and character literals are blanked
# first so their braces do not count; a brace block at file scope is a function when the text
# before it since the last ';' or '}' has a '(' and no '=' (an initialised table is not one).
# Used by tests/arch.sh: awk -f tests/arch_strip.awk -f tests/arch_funcs.awk FILE...
FNR == 1 { depth = 0; head = "" }
{
    out = strip($0)
    # a preprocessor line never opens a function
    if (out ~ /^[ \t]*#/) next
    for (i = 1; i <= length(out); i++) {
        c = substr(out, i, 1)
        if (c == "{") {
            if (depth == 0) {
                isfunc = head ~ /\(/ && head !~ /=/
                start = FNR
                name = head
                sub(/\(.*/, "", name)
                gsub(/.*[^A-Za-z0-9_]/, "", name)
            }
            depth++
        } else if (c == "}") {
            depth--
            if (depth == 0) {
                if (isfunc) print FILENAME, start, name, FNR - start + 1
                head = ""
            }
        } else if (depth == 0) {
            if (c == ";") head = ""
            else head = head c
        }
    }
    if (depth == 0) head = head " "
}
