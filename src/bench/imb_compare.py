#!/usr/bin/env python3
# imb_compare.py -- zerobench --timing imb against IMB-MPI1 on the same machine: per size, the
# median over runs of our out-of-place median time over the median over runs of IMB's t_avg.
# usage: imb_compare.py DIR  (DIR holds zb-<bench>-<run>.json and imb-<run>.txt)
import glob, json, os, statistics as st, sys

IMB_NAME = {'allreduce': 'Allreduce', 'allgather': 'Allgather', 'reducescatter': 'Reduce_scatter_block'}


def imb_table(path, name):
    """IMB-MPI1 stdout -> {bytes: t_avg_us} for one benchmark."""
    text = open(path).read()
    head = '# Benchmarking %s \n' % name
    if head not in text:
        return {}
    out = {}
    for line in text.split(head)[1].split('# Benchmarking')[0].splitlines():
        f = line.split()
        if len(f) == 5 and f[0].isdigit():
            out[int(f[0])] = float(f[4])
    return out


def main(d):
    for bench, name in IMB_NAME.items():
        ours, theirs = {}, {}
        for p in sorted(glob.glob(os.path.join(d, 'zb-%s-*.json' % bench))):
            for row in json.load(open(p))['rows']:
                ours.setdefault(row['bytes'], []).append(row['out_of_place']['time_us'])
        for p in sorted(glob.glob(os.path.join(d, 'imb-*.txt'))):
            for k, v in imb_table(p, name).items():
                theirs.setdefault(k, []).append(v)
        if not ours or not theirs:
            continue
        print(bench)
        ratios = []
        for size in sorted(ours):
            # IMB counts all-gather and reduce-scatter sizes per process; ours is the whole buffer
            # (2 ranks here).
            ib = size if bench == 'allreduce' else size // 2
            if ib not in theirs or size == 0:
                continue
            a, c = st.median(ours[size]), st.median(theirs[ib])
            ratios.append((size, a / c))
            print('  %9d B  ours %10.2f us  IMB %10.2f us  ratio %.2f' % (size, a, c, a / c))
        big = [x for s, x in ratios if s >= 8192]
        print('  median ratio %.2f (all sizes), %.2f (>= 8 KiB); within 10%%: %d of %d sizes >= 8 KiB' % (
            st.median(x for _, x in ratios), st.median(big), sum(abs(x - 1) <= 0.10 for x in big), len(big)))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: imb_compare.py DIR')
    main(sys.argv[1])
