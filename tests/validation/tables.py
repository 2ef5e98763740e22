#!/usr/bin/env python3
"""tables.py -- the README's validation tables from the current build: per source, and per
framework, each with its training half (the 1st, 3rd, 5th ... time-like run of a framework in
file order, what `validate --fit` fits) and its held-out half (the 2nd, 4th ...).

Run from the repository root: python3 tests/validation/tables.py [ZEROSIM]. Prints two Markdown
tables; README.md's "Validation against published runs" section holds their output."""
import json
import subprocess
import sys

Z = sys.argv[1] if len(sys.argv) > 1 else "./zerosim"
FILES = ["tests/validation/published_runs.csv", "tests/validation/framework_runs.csv"]
# Sources in the README's order: (label, name prefix).
SOURCES = [
    ("Korthikanti 2022 T5 (Megatron, A100)", "korthikanti22-"),
    ("Narayanan 2021 T1 (Megatron, A100)", "narayanan21-t1-"),
    ("Narayanan 2021 T2 ZeRO-3 (DeepSpeed 2021, `deepspeed@0.3`)", "narayanan21-t2-zero3-"),
    ("Narayanan 2021 T2 PTD (Megatron, A100)", "narayanan21-t2-ptd-"),
    ("LLM Foundry MPT, A100-80GB (FSDP)", "foundry-a100-80gb-"),
    ("LLM Foundry MPT, A100-40GB (FSDP)", "foundry-a100-40gb-"),
    ("LLM Foundry MPT, H100 (FSDP)", "foundry-h100-80gb-"),
    ("BLOOM-176B (Megatron-DeepSpeed)", "bloom-"),
    ("DeepSpeed Azure blog (ZeRO-3, A100)", "dsazure-"),
    ("DeepSpeed ZeRO++ tutorial (V100)", "dszeropp-"),
    ("DeepSpeed ZeRO-Offload tutorial (V100)", "dsoffload-"),
    ("DeepSpeed ZeRO tutorial (V100)", "dszero-tutorial-"),
    ("HF Trainer DDP, autotuning tutorial (V100)", "dsautotune-gpt2-large-g16-hf-"),
    ("DeepSpeed autotuning tutorial (V100)", "dsautotune-gpt2-large-g16-z"),
]


def pct(xs):
    return "%.1f%% (%d)" % (100 * sum(abs(x) for x in xs) / len(xs), len(xs)) if xs else "-"


def main():
    runs = json.loads(subprocess.run([Z, "validate"] + FILES + ["--format", "json"], check=True,
                                     capture_output=True, text=True).stdout)["runs"]
    fits = json.loads(subprocess.run([Z, "validate"] + FILES + ["--fit", "--format", "json"], check=True,
                                     capture_output=True, text=True).stdout)["frameworks"]
    fitted = {f["framework"] for f in fits}
    seen = {}
    for r in runs:  # the halves, as validate --fit takes them (only frameworks it fits)
        if r.get("excluded") or r["metric"] != "step_seconds" or r["framework"] not in fitted:
            continue
        n = seen.get(r["framework"], 0)
        r["half"] = "train" if n % 2 == 0 else "held"
        seen[r["framework"]] = n + 1
    print("| source | framework | runs | train MAPE | held-out MAPE | worst |")
    print("|---|---|---|---|---|---|")
    for label, prefix in SOURCES:
        rs = [r for r in runs if r["name"].startswith(prefix)]
        if not rs:
            continue
        fw = rs[0]["framework"]
        worst = max(rs, key=lambda r: abs(r["error"]))["error"]
        ex = all(r.get("excluded") for r in rs)
        nofit = not ex and all(r["framework"] not in fitted for r in rs)
        ex = ex or nofit
        print("| %s | %s | %d%s | %s | %s | %+.1f%% |" % (
            label, fw, len(rs), " (excluded)" if ex and not nofit else " (not fitted)" if nofit else "",
            "-" if ex else pct([r["error"] for r in rs if r.get("half") == "train"]),
            "-" if ex else pct([r["error"] for r in rs if r.get("half") == "held"]), 100 * worst))
    print()
    print("| framework | gemm_efficiency (fitted) | step_overhead s (fitted) | train runs | held-out runs |"
          " held-out MAPE | held-out worst |")
    print("|---|---|---|---|---|---|---|")
    for f in fits:
        print("| %s | %.3f ± %.3f | %.3f ± %.3f | %d | %d | %.1f%% | %.1f%% |" % (
            f["framework"], f["fitted_gemm_efficiency"], f["fitted_stderr"], f["fitted_step_overhead_seconds"],
            f["fitted_step_overhead_stderr"], f["train_runs"], f["held_out_runs"],
            100 * f["mape_held_out_shipped"], 100 * f["worst_held_out_shipped"]))


if __name__ == "__main__":
    main()
