#!/usr/bin/env python3
# gpu_summary.py -- one-screen summary of a gpu_check.sh output directory, beside the hardware profile.
"""usage: gpu_summary.py OUTDIR PROFILE.json NGPUS

Reads the zerobench JSON files gpu_check.sh wrote and prints at most ~30 lines:
device, collective bus bandwidth (largest size) and small-message time, Adam
against the device-to-device copy, membw, GEMM TFLOP/s per precision, the
model-shaped GEMMs, and the calibrated profile's fitted values; each beside
the hardware profile's number. Missing files are reported, never fatal.
"""
import glob
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(argv):
    out, prof_path, ngpus = argv[1], argv[2], int(argv[3])
    prof = load(prof_path) or {}
    gpu = prof.get("gpu", {})
    peak = gpu.get("peak_flops", {})
    hbm = gpu.get("hbm_bandwidth_bytes_per_second")
    intra = prof.get("intra_node", {}).get("bandwidth_bytes_per_second")
    lines = []
    first = None
    for f in sorted(glob.glob(os.path.join(out, "*.json"))):
        d = load(f)
        if d and d.get("tool") == "zerobench":
            first = d
            break
    if first:
        s = first.get("system", {})
        lines.append("GPU %s x%d, cc %s, driver %s, CUDA %s, NCCL %s; profile %s" % (
            s.get("gpu_model", "?"), ngpus, s.get("gpu_compute_capability", "?"), s.get("cuda_driver_version", "?"),
            s.get("cuda_runtime_version", "?"), s.get("nccl_version", "?"), os.path.basename(prof_path)))
    note = " (single GPU: no inter-GPU traffic, busbw factor 0 or 1)" if ngpus == 1 else ""
    lines.append("collectives, %d rank(s)%s: busbw GB/s at the largest size (profile NVLink %s GB/s/dir), time at 8 B"
                 % (ngpus, note, "%.0f" % (intra / 1e9) if intra else "?"))
    row = []
    for f in sorted(glob.glob(os.path.join(out, "coll-*.json"))):
        d = load(f)
        if not d or not d.get("rows"):
            row.append("%s: missing" % os.path.basename(f)[5:-5])
            continue
        big, small = d["rows"][-1]["out_of_place"], d["rows"][0]["out_of_place"]
        row.append("%s %.1f/%.1fus" % (os.path.basename(f)[5:-5], big["busbw_gbps"], small["time_us"]))
    for i in range(0, len(row), 4):
        lines.append("  " + ";  ".join(row[i:i + 4]))
    d = load(os.path.join(out, "adam.json"))
    if d and d.get("rows"):
        lines.append("adam (goal: >= 0.85 of the D2D copy from one full wave up): params variant GB/s copy ratio")
        cells = ["%.0e %s %.0f %.0f %.2f" % (r["params"], r["variant"], r["gbps"], r["ref_gbps"], r["fraction_of_ref"])
                 for r in d["rows"]]
        for i in range(0, len(cells), 4):
            lines.append("  " + ";  ".join(cells[i:i + 4]))
    d = load(os.path.join(out, "membw.json"))
    if d and d.get("rows"):
        best = max(d["rows"], key=lambda r: r["gbps"])
        lines.append("membw best %s %.0f GB/s = %.2f of the profile's HBM %.0f GB/s" % (
            best["kernel"], best["gbps"], best["gbps"] * 1e9 / hbm if hbm else 0, (hbm or 0) / 1e9))
    for p in ("bf16", "tf32", "fp8"):
        d = load(os.path.join(out, "gemm-%s.json" % p))
        if d and d.get("rows"):
            best = max(d["rows"], key=lambda r: r["tflops"])
            pk = peak.get(p)
            lines.append("gemm %-4s max %.0f TFLOP/s at %dx%dx%d = %.2f of dense peak %.0f" % (
                p, best["tflops"], best["m"], best["n"], best["k"], best["tflops"] * 1e12 / pk if pk else 0,
                (pk or 0) / 1e12))
    for f in sorted(glob.glob(os.path.join(out, "gemm-model-*.json"))):
        d = load(f)
        if not d or not d.get("rows"):
            continue
        rows = d["rows"]
        p = rows[0].get("precision", "?")
        t = sum(r["time_us"] for r in rows)
        fl = sum(r["flops"] for r in rows)
        up = [r for r in rows if r["name"] == "mlp_up.fwd"]
        pk = peak.get(p)
        lines.append("model %s tp %d %s: block+logits fwd+bwd %.2f ms, %.0f TFLOP/s (%.2f of peak); mlp_up.fwd %.2f"
                     % (rows[0]["model"], rows[0]["tp"], p, t / 1e3, fl / t / 1e6, fl / t / 1e6 * 1e12 / pk if pk else 0,
                        up[0]["tflops"] * 1e12 / pk if up and pk else 0))
    cal = glob.glob(os.path.join(out, "calibrate.txt"))
    if cal:
        text = [l for l in open(cal[0]).read().splitlines() if l.strip()]
        lines.append("calibrate: " + (text[0] if text else "no output"))
        lines.extend("  " + l for l in text[1:8])
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
