#!/usr/bin/env python3
"""readme.py -- rerun the README's examples and put the current build's output in place.

Every fenced block whose first line is `$ ./zerosim ...` (continued with trailing backslashes)
holds commands, each followed by what it printed. `make readme` reruns each one in the repository root and
replaces the printed part:
- a block whose output starts with a line `...` is an excerpt: the excerpt's first line (after
  the `...`) names where it starts in the new output, and as many lines as the excerpt had are
  taken from there (a later `...` line closes it);
- a command that sends stdout to /dev/null shows what it printed on stderr;
- a block whose command fails (exit status over 1: a file the README only illustrates, such as
  a checkpoint not in the repository) is left as it is and named on stderr.
With --check nothing is written: the blocks that would change are named and the exit status is
1 when any would."""
import subprocess
import sys

FENCE = "```"


def run(cmd):
    shell = cmd.replace("\\\n", " ")
    err_too = ">/dev/null" in shell or "> /dev/null" in shell
    p = subprocess.run(shell, shell=True, capture_output=True, text=True)
    if p.returncode > 1:
        return None
    out = (p.stderr if err_too else p.stdout).rstrip("\n")
    return out.split("\n") if out else []


def excerpt(old, new):
    """The lines of new that the excerpt old (starting with '...') shows, or None."""
    body = old[1:]
    tail = body and body[-1] == "..."
    if tail:
        body = body[:-1]
    if not body:
        return None
    key = body[0].split("  ")[0].rstrip()
    for i, line in enumerate(new):
        if line.startswith(key):
            return ["..."] + new[i:i + len(body)] + (["..."] if tail else [])
    return None


def main():
    check = "--check" in sys.argv
    text = open("README.md").read().split("\n")
    out, i, changed, kept = [], 0, [], []
    while i < len(text):
        line = text[i]
        out.append(line)
        if line == FENCE and i + 1 < len(text) and text[i + 1].startswith("$ ./zerosim"):
            # A block: one or more commands, each followed by what it printed.
            j = i + 1
            while text[j] != FENCE:
                cmd = [text[j]]
                while cmd[-1].endswith("\\"):
                    j += 1
                    cmd.append(text[j])
                k = j + 1
                while text[k] != FENCE and not text[k].startswith("$ ./zerosim"):
                    k += 1
                old = text[j + 1:k]
                new = run("\n".join(c[2:] if n == 0 else c for n, c in enumerate(cmd)))
                if new is not None and old[:1] == ["..."]:
                    new = excerpt(old, new)
                if new is None:
                    kept.append(cmd[0])
                    new = old
                elif new != old:
                    changed.append(cmd[0])
                out.extend(cmd)
                out.extend(new)
                j = k
            i = j
            continue
        i += 1
    for c in kept:
        print("readme: left as written (the command failed here): " + c, file=sys.stderr)
    for c in changed:
        print(("readme: out of date: " if check else "readme: regenerated: ") + c, file=sys.stderr)
    if check:
        return 1 if changed else 0
    if changed:
        with open("README.md.tmp", "w") as f:
            f.write("\n".join(out))
        import os
        os.replace("README.md.tmp", "README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
