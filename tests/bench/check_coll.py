#!/usr/bin/env python3
# check_coll.py -- validates a zerobench collective table against its own arithmetic and its JSON file.
"""usage: check_coll.py BENCH NRANKS TABLE.txt FILE.json [--wrong N] [--per-iter] [--inplace-na]
                     [--imb ITERS] [--untimed N]

Checks, exiting 1 with one line per problem:
  * every data row has the expected columns; #wrong equals N (default 0);
  * algbw = size / time and busbw = algbw * factor(BENCH, NRANKS), allowing
    for the rounding of the printed digits (interval arithmetic);
  * size/count follow nccl-tests (count * typesize [* nranks]);
  * the JSON (schema_version 1, tool zerobench) has the same rows, values
    equal to the printed ones within their rounding, and a matching summary;
  * the footer's Avg bus bandwidth is the mean busbw of all passes;
  * --inplace-na: every in-place pass prints N/A and is null in the JSON;
  * --imb ITERS: JSON passes carry time_min_us <= time_median_us = time_us
    <= time_max_us over ITERS x NRANKS samples;
  * --untimed N: each pass made N untimed calls (check + the sync call).
"""
import json
import sys

TYPESIZE = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
            "half": 2, "float": 4, "double": 8, "bfloat16": 2, "f8e4m3": 1, "f8e5m2": 1}


def factor(bench, n):
    """busbw / algbw from nccl-tests doc/PERFORMANCE.md (NVIDIA/nccl-tests)."""
    return {"allreduce": 2.0 * (n - 1) / n, "allgather": (n - 1) / n, "allgather-list": (n - 1) / n,
            "reducescatter": (n - 1) / n,
            "broadcast": 1.0, "alltoall": (n - 1) / n, "reduce": 1.0, "gather": (n - 1) / n,
            "scatter": (n - 1) / n, "sendrecv": 1.0}[bench]


def half_unit(text):
    """Half of the last printed digit's unit (e.g. '12.34' -> 0.005)."""
    t = text.strip()
    if "e" in t or "E" in t:
        mant, exp = t.lower().split("e")
        dec = len(mant.split(".")[1]) if "." in mant else 0
        return 0.5 * 10 ** (int(exp) - dec)
    return 0.5 * 10 ** (-(len(t.split(".")[1]) if "." in t else 0))


def interval(text):
    v, h = float(text), half_unit(text)
    return v - h, v + h


def main(argv):
    bench, nranks, table, jpath = argv[1], int(argv[2]), argv[3], argv[4]
    want_wrong = int(argv[argv.index("--wrong") + 1]) if "--wrong" in argv else 0
    per_iter = "--per-iter" in argv
    inplace_na = "--inplace-na" in argv
    imb_iters = int(argv[argv.index("--imb") + 1]) if "--imb" in argv else 0
    untimed = int(argv[argv.index("--untimed") + 1]) if "--untimed" in argv else None
    errs = []
    rows, avg_bw, oob = [], None, None
    for line in open(table):
        if line.startswith("# Avg bus bandwidth"):
            avg_bw = line.split(":")[1].split()[0]
        elif line.startswith("# Out of bounds values"):
            oob = line.split(":")[1].split()
        elif line.strip() and not line.startswith("#"):
            rows.append(line.split())
    ncol = 5 + 2 * (8 if per_iter else 4)
    if not rows:
        errs.append("no data rows")
    f = factor(bench, nranks)
    per = 8 if per_iter else 4
    for r in rows:
        if len(r) != ncol:
            errs.append("row has %d columns, want %d: %s" % (len(r), ncol, " ".join(r)))
            continue
        size, count, typ = int(r[0]), int(r[1]), r[2]
        ts = TYPESIZE[typ]
        mult = nranks if bench in ("allgather", "allgather-list", "reducescatter", "alltoall", "gather",
                                   "scatter") else 1
        if size != count * ts * mult:
            errs.append("size %d != count %d x %d x %d" % (size, count, ts, mult))
        for p in range(2):
            t, alg, bus, wrong = r[5 + p * per: 9 + p * per]
            if p == 1 and inplace_na:
                if r[5 + per: 5 + 2 * per] != ["N/A"] * per:
                    errs.append("size %d: in-place pass should print N/A: %s" % (size, r[5 + per:]))
                continue
            if wrong == "N/A":   # -c 0: not checked
                wrong = "-1"
            elif int(wrong) != want_wrong:
                errs.append("size %d pass %d: #wrong %s, want %d" % (size, p, wrong, want_wrong))
            tlo, thi = interval(t)
            if tlo <= 0:
                continue
            alo, ahi = size / 1e3 / thi, size / 1e3 / tlo
            plo, phi = interval(alg)
            if phi < alo or plo > ahi:
                errs.append("size %d pass %d: algbw %s not size/time (%g..%g)" % (size, p, alg, alo, ahi))
            blo, bhi = interval(bus)
            if bhi < plo * f - 1e-12 or blo > phi * f + 1e-12:
                errs.append("size %d pass %d: busbw %s != algbw %s x %g" % (size, p, bus, alg, f))
            if per_iter:
                mn, mx, p99 = (float(x) for x in r[9 + p * per: 12 + p * per])
                if not (mn <= p99 <= mx):
                    errs.append("size %d pass %d: per-iteration min %g p99 %g max %g out of order" % (size, p, mn, p99, mx))
    passes = 1 if inplace_na else 2
    if oob is None or int(oob[0]) != (0 if want_wrong == 0 else passes * len(rows)):
        errs.append("footer Out of bounds values is %s" % oob)

    doc = json.load(open(jpath))
    if doc.get("schema_version") != 1 or doc.get("tool") != "zerobench" or doc.get("benchmark") != bench:
        errs.append("JSON header wrong: %s" % {k: doc.get(k) for k in ("schema_version", "tool", "benchmark")})
    if doc.get("mpi", {}).get("ranks") != nranks:
        errs.append("JSON mpi.ranks %s, want %d" % (doc.get("mpi", {}).get("ranks"), nranks))
    for key in ("date", "command", "system", "mpi", "config"):
        if key not in doc:
            errs.append("JSON lacks %s" % key)
    jrows = doc.get("rows", [])
    if len(jrows) != len(rows):
        errs.append("JSON has %d rows, table %d" % (len(jrows), len(rows)))
    busbws = []
    for r, j in zip(rows, jrows):
        if len(r) != ncol:
            continue
        if (j["bytes"], j["count"], j["type"], j["op"], j["root"]) != (int(r[0]), int(r[1]), r[2], r[3], int(r[4])):
            errs.append("JSON row %s differs from table row %s" % (j, r[:5]))
        for p, key in enumerate(("out_of_place", "in_place")):
            jp = j[key]
            if p == 1 and inplace_na:
                if jp is not None or j.get("in_place_supported") is not False:
                    errs.append("JSON in_place should be null with in_place_supported false: %s" % j)
                continue
            busbws.append(jp["busbw_gbps"])
            if imb_iters:
                lo_, med, hi_ = jp.get("time_min_us"), jp.get("time_median_us"), jp.get("time_max_us")
                if None in (lo_, med, hi_) or not (lo_ <= med <= hi_) or abs(med - jp["time_us"]) > 1e-9 * med:
                    errs.append("JSON %s imb statistics out of order or time_us != median: %s" % (key, jp))
                if jp.get("time_samples") != imb_iters * nranks:
                    errs.append("JSON %s time_samples %s, want %d" % (key, jp.get("time_samples"), imb_iters * nranks))
            if untimed is not None and jp.get("untimed_calls") != untimed:
                errs.append("JSON %s untimed_calls %s, want %d" % (key, jp.get("untimed_calls"), untimed))
            for col, name in ((0, "time_us"), (1, "algbw_gbps"), (2, "busbw_gbps")):
                text = r[5 + p * per + col]
                lo, hi = interval(text)
                if not (lo - 1e-9 <= jp[name] <= hi + 1e-9):
                    errs.append("JSON %s %s=%g, table prints %s" % (key, name, jp[name], text))
            if (jp["wrong"] if jp["wrong"] is not None else -1) != int(r[8 + p * per].replace("N/A", "-1")):
                errs.append("JSON %s wrong=%s, table %s" % (key, jp["wrong"], r[8 + p * per]))
    if busbws and avg_bw is not None:
        mean = sum(busbws) / len(busbws)
        if abs(mean - float(avg_bw)) > 1e-5 * max(1.0, mean):
            errs.append("Avg bus bandwidth %s, mean busbw %g" % (avg_bw, mean))
    summ = doc.get("summary", {})
    if summ.get("ok") != (want_wrong == 0):
        errs.append("JSON summary ok=%s" % summ.get("ok"))
    for e in errs:
        print("check_coll: " + e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
