#!/bin/sh
# compare.sh -- compare: agrees with estimate and plan.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# ---- compare (issue 16): the same core as estimate and plan, so the answers agree with them ----
# For several models and strategies: the largest micro-batch fits and one more does not
# (estimate by hand), the fewest GPUs fit and the next smaller count plan searches does not
# (plan by hand with --max-gpus below it), and the JSON has the documented keys.
for spec in "llama-2-7b a100-80gb 8" "llama-2-13b h100-80gb 16" "gpt2-xl a100-40gb 4" "mixtral-8x7b h100-80gb 32"; do
    set -- $spec
    if python3 - "$Z" "$1" "$2" "$3" <<'PY'
import json, subprocess, sys
z, model, hw, gpus = sys.argv[1:5]
def run(*args):
    p = subprocess.run([z] + list(args), capture_output=True, text=True)
    if p.returncode not in (0, 1): raise SystemExit('%s: exit %d %s' % (' '.join(args), p.returncode, p.stderr))
    return json.loads(p.stdout)
base = ['--model', model, '--hardware', hw]
if model.startswith('gpt2'): base += ['--seq-len', '1024']  # GPT-2's n_positions
d = run('compare', *base, '--gpus', gpus, '--global-batch', '64', '--format', 'json')
assert d['schema_version'] == 1
keys = {'strategy', 'framework', 'fits', 'memory_bytes', 'max_micro_batch', 'max_micro_batch_with_recompute',
        'min_gpus', 'min_gpus_config', 'best', 'cost', 'savings'}
for r in d['results']:
    assert keys <= set(r), set(r) ^ keys
    s, mb = r['strategy'], r['max_micro_batch']
    if mb:
        ok = run('estimate', *base, '--gpus', gpus, '--strategy', s, '--micro-batch', str(mb), '--format', 'json')
        no = run('estimate', *base, '--gpus', gpus, '--strategy', s, '--micro-batch', str(mb + 1), '--format', 'json')
        assert ok['results'][0]['fits'] and not no['results'][0]['fits'], (s, mb)
        assert abs(ok['results'][0]['memory_bytes']['total'] - r['at_max_micro_batch']['memory_bytes']['total']) < 1, s
    est = run('estimate', *base, '--gpus', gpus, '--strategy', s, '--format', 'json')['results'][0]
    if est['applicable']:
        assert abs(est['memory_bytes']['total'] - r['memory_bytes']['total']) < 1, s
    if r['min_gpus']:
        g = r['min_gpus']
        counts = run('plan', *base, '--max-gpus', str(g), '--global-batch', '64', '--strategy', s, '--format', 'json')
        assert counts['min_gpus'][s] == g, (s, g, counts['min_gpus'])
        smaller = [c for c in (1, 2, 4) if c < g] + list(range(8, g, 8))
        if smaller:
            p = run('plan', *base, '--max-gpus', str(max(smaller)), '--global-batch', '64', '--strategy', s, '--format', 'json')
            assert p['min_gpus'][s] is None, (s, g, max(smaller), p['min_gpus'])
        cfg = r['min_gpus_config']
        e = run('estimate', *base, '--gpus', str(cfg['gpus']), '--tp', str(cfg['tp']), '--pp', str(cfg['pp']),
                '--virtual-stages', str(cfg['virtual_stages']), '--micro-batch', str(cfg['micro_batch']),
                '--grad-accum', str(cfg['grad_accum']), '--checkpointing', cfg['checkpointing'],
                '--offload-optimizer', cfg['offload_optimizer'], '--offload-params', cfg['offload_params'],
                '--ep', str(cfg['ep']),
                *(['--pp-first-layers', str(cfg['pp_first_layers'])] if cfg['pp_first_layers'] else []),
                *(['--pp-last-layers', str(cfg['pp_last_layers'])] if cfg['pp_last_layers'] else []),
                *(['--sequence-parallel'] if cfg['sequence_parallel'] else []), '--strategy', s, '--format', 'json')
        assert e['results'][0]['fits'], (s, cfg)
PY
    then ok; else bad "compare agrees with estimate and plan for $spec"; fi
done
expect 2 "" -- compare --model llama-2-7b --gpus 8 --max-gpus abc
"$Z" compare --model llama-2-7b --gpus 8 --tokens 1e11 >"$out" 2>"$err" && grep -q "Saved against the baseline" "$out" && grep -q "dollars" "$out" && ok || bad "compare table"

# The run's global batch at the flags' largest values overflowed int64 (UB; fuzz_flags): now a
# usage error naming --global-batch, in compare and in plot compare.
expect 2 "give --global-batch" -- compare $M --gpus 10000000 --micro-batch 1000000 --grad-accum 1000000
expect 2 "above 1e8 sequences" -- plot compare $M --gpus 10000000 --micro-batch 1000000 --grad-accum 1000000 -o "$W/c.png"

finish
