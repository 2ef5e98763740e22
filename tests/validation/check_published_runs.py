#!/usr/bin/env python3
"""Check published_runs.csv: shape, types, enums, model files, and the derived-column identities.
Run from anywhere: python3 tests/validation/check_published_runs.py"""
import csv, json, os, sys
root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
path = os.path.join(root, "tests/validation/published_runs.csv")
HEADER = "name,model,hardware,gpus,gpus_per_node,strategy,tp,pp,virtual_stages,micro_batch,global_batch,seq_len,precision,checkpointing,sequence_parallel,measured_step_seconds,measured_tokens_per_second,measured_tflops_per_gpu,measured_mfu,measured_hfu,peak_memory_bytes,source".split(",")
INTS = "gpus gpus_per_node tp pp virtual_stages micro_batch global_batch seq_len peak_memory_bytes".split()
FLOATS = "measured_step_seconds measured_tokens_per_second measured_tflops_per_gpu measured_mfu measured_hfu".split()
ENUM = {"hardware": {"a100-80gb","a100-40gb","h100-80gb","v100-32gb","a100-80gb-jeanzay"}, "strategy": {"ddp","zero1","zero2","zero3"},
        "precision": {"bf16","fp16","fp32"}, "checkpointing": {"none","selective","full"}, "sequence_parallel": {"true","false"}}
CATALOG = {"gpt2","gpt2-xl","llama-2-7b","llama-2-13b","llama-2-70b","llama-3-8b","llama-3-70b","llama-3.1-405b","mistral-7b","mixtral-8x7b","qwen2-7b","gpt3-175b","mt-nlg-530b","bloom-176b","gpt-neox-20b"}
errs = 0
def bad(msg):
    global errs; errs += 1; print("ERROR", msg)
with open(path, newline="") as f:
    rdr = csv.reader(f)
    hdr = next(rdr)  # the base columns, then optional ones (src/io/runs.h)
    OPTIONAL = {"framework", "offload_optimizer", "offload_params", "grad_dtype", "shard_group", "zero_hpz",
                "quantized_weights", "quantized_gradients", "overlap_comm", "flash_attention", "excluded",
                "loss", "bf16_optimizer", "reduce_dtype"}
    if hdr[:len(HEADER)] != HEADER or not set(hdr[len(HEADER):]) <= OPTIONAL: bad("header mismatch")
    rows = []
    for i, r in enumerate(rdr, 2):
        if len(r) != len(hdr): bad("line %d has %d cols" % (i, len(r))); continue
        rows.append(dict(zip(hdr, r)))
names = set()
# LLM Foundry's MP Mode (source (c)): PURE on the A100-40GB rows and the A100-80GB 70B rows, DEFAULT
# elsewhere, which the Composer the tables ran runs with reduce_dtype fp32 (tests/validation/README.md).
for r in rows:
    if r["name"].startswith("foundry-"):
        pure = r["hardware"] == "a100-40gb" or (r["hardware"] == "a100-80gb" and "-mpt-70b-" in r["name"])
        if r.get("reduce_dtype", "") != ("" if pure else "fp32"): bad(r["name"] + ": reduce_dtype against MP Mode")
def params(m):  # exact count for our "transformer" files: fused qkv + biases, 2 LN/layer, final LN, tied
    h, L, V, S, f = m["hidden_size"], m["num_hidden_layers"], m["vocab_size"], m["max_position_embeddings"], m["intermediate_size"]
    per = 4*h*h + 4*h + 2*h*f + f + h + 4*h
    return L*per + 2*h + V*h + S*h
for r in rows:
    n = r["name"]
    if n in names: bad("duplicate name " + n)
    names.add(n)
    for k in INTS:
        if r[k] != "":
            try:
                v = int(r[k]); assert v > 0
            except Exception: bad("%s: %s=%r not a positive int" % (n, k, r[k]))
    for k in FLOATS:
        if r[k] != "":
            try:
                v = float(r[k]); assert v > 0
                if k in ("measured_mfu","measured_hfu"): assert v < 1
            except Exception: bad("%s: %s=%r bad" % (n, k, r[k]))
    for k, allowed in ENUM.items():
        if r[k] not in allowed: bad("%s: %s=%r" % (n, k, r[k]))
    for k in ("name","model","hardware","gpus","strategy","tp","pp","global_batch","seq_len","precision","checkpointing","sequence_parallel","source"):
        if r[k] == "": bad("%s: required %s empty" % (n, k))
    if not any(r[k] for k in FLOATS + ["peak_memory_bytes"]): bad(n + ": no measurement")
    g, tp, pp = int(r["gpus"]), int(r["tp"]), int(r["pp"])
    if g % (tp*pp): bad(n + ": gpus not divisible by tp*pp")
    dp = g // (tp*pp)
    gb = int(r["global_batch"])
    if r["micro_batch"]:
        mb = int(r["micro_batch"])
        if gb % (mb*dp) and not n.startswith("foundry"): bad(n + ": global batch not a multiple of mb*dp")
    if r["measured_step_seconds"] and r["measured_tokens_per_second"]:
        t = gb*int(r["seq_len"])/float(r["measured_step_seconds"])
        if abs(t/float(r["measured_tokens_per_second"]) - 1) > 2e-3: bad(n + ": step/tokens inconsistent")
    mdl = r["model"]
    if mdl.endswith(".json"):
        p = os.path.join(root, mdl)
        if not os.path.exists(p): bad(n + ": missing model file " + mdl); continue
        m = json.load(open(p))
        for k in ("name","model_type","source","hidden_size","num_hidden_layers","num_attention_heads","vocab_size","max_position_embeddings"):
            if k not in m: bad(mdl + " lacks " + k)
        if len(m["source"]) >= 256 or len(m["name"]) >= 64: bad(mdl + ": name/source too long for model.h")
        if m["hidden_size"] % m["num_attention_heads"]: bad(mdl + ": heads do not divide hidden")
        if m["num_hidden_layers"] % pp and n.startswith("korth"): bad(n + ": layers not divisible by pp")
        if m["max_position_embeddings"] != int(r["seq_len"]): bad(n + ": seq_len != model max_position_embeddings")
        r["_params"] = params(m); r["_m"] = m
    elif mdl not in CATALOG: bad(n + ": unknown catalog model " + mdl)

# Korthikanti: MFU from the paper's model-FLOPs formula and the published time
for r in rows:
    if r["name"].startswith("korth") and r["measured_mfu"]:
        m = r["_m"]; h, L = m["hidden_size"], m["num_hidden_layers"]; B = int(r["global_batch"]); s = 2048; V = 51200
        F = 72*B*L*s*h*h*(1 + s/(6*h) + V/(12*h*L))
        mfu = F/(float(r["measured_step_seconds"])*int(r["gpus"])*312e12)
        print("  %-36s MFU from formula %.3f  published %s" % (r["name"], mfu, r["measured_mfu"]))

import collections
print(dict(collections.Counter(r["name"].split("-")[0] for r in rows)))
print(len(rows), "rows;", errs, "errors")

# framework_runs.csv: the same checks plus the framework columns and each source's derivation
fpath = os.path.join(root, "tests/validation/framework_runs.csv")
FHDR = HEADER + "framework offload_optimizer offload_params grad_dtype shard_group zero_hpz quantized_weights quantized_gradients overlap_comm flash_attention activation_offload excluded".split()
PEAK = {"a100-80gb": 312.0, "v100-32gb": 125.0}  # dense fp16 TFLOP/s (A100, V100 datasheets)
with open(fpath, newline="") as f:
    rdr = csv.reader(f)
    if next(rdr) != FHDR: bad("framework_runs.csv: header mismatch")
    frows = [dict(zip(FHDR, r)) for r in rdr if len(r) == len(FHDR) or bad("framework_runs.csv: row with %d cols" % len(r))]
if len(frows) != 12: bad("framework_runs.csv: %d rows, expected 12" % len(frows))
for r in frows:
    n = r["name"]
    if r["framework"] not in {"generic", "deepspeed", "deepspeed@0.3", "fsdp", "fsdp2", "megatron"}: bad(n + ": framework")
    if r["overlap_comm"] not in {"", "true", "false"} or r["flash_attention"] != "false": bad(n + ": overlap_comm/flash_attention")
    if r["activation_offload"] not in {"", "true"}: bad(n + ": activation_offload")
    if r["offload_optimizer"] not in {"none", "cpu", "nvme"} or r["offload_params"] not in {"none", "cpu", "nvme"}: bad(n + ": offload")
    if r["hardware"] not in PEAK or r["strategy"] not in ENUM["strategy"] or r["checkpointing"] not in ENUM["checkpointing"]: bad(n + ": enum")
    g, mb, gb, s = int(r["gpus"]), int(r["micro_batch"]), int(r["global_batch"]), int(r["seq_len"])
    if gb % (mb * g): bad(n + ": global batch not a multiple of mb*gpus")
    hpz = int(r["zero_hpz"])
    if hpz and (g % hpz or r["strategy"] != "zero3"): bad(n + ": hpZ group")
    t = float(r["measured_step_seconds"])
    if abs(gb * s / t / float(r["measured_tokens_per_second"]) - 1) > 2e-3: bad(n + ": step/tokens inconsistent")
    m = json.load(open(os.path.join(root, r["model"])))
    if m["max_position_embeddings"] != s: bad(n + ": seq_len != max_position_embeddings")
    if r["measured_tflops_per_gpu"]:
        X = float(r["measured_tflops_per_gpu"])
        if abs(float(r["measured_hfu"]) / (X / PEAK[r["hardware"]]) - 1) > 2e-3: bad(n + ": HFU != TFLOPs/peak")
        # Megatron's (and Megatron-DeepSpeed's) hardware FLOPs, recompute included: 96 B s l h^2 (1 + s/6h + V/16lh)
        h, l, V = m["hidden_size"], m["num_hidden_layers"], m["vocab_size"]
        F = 96 * gb * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
        X2 = F / (g * t) / 1e12
        print("  %-36s TFLOP/s from formula %.2f  published %s" % (n, X2, r["measured_tflops_per_gpu"]))
        if abs(X2 / X - 1) > 2e-3: bad(n + ": TFLOP/s formula disagrees")
print(dict(collections.Counter(r["name"].split("-")[0] for r in frows)))
print(len(frows), "framework rows;", errs, "errors")
sys.exit(1 if errs else 0)
