"""zerosim.results -- the answers as dicts with a few conveniences: .fits, .memory, .step and
.to_dataframe() (pandas, when it is installed).

An answer stays the JSON `--format json` prints (a Result is a dict, Rows a list), so r["results"]
and json.dumps(r) work as before. The conveniences read its per-strategy rows: "results"
(estimate, compare), "ranked" (plan), "runs" (validate), or the answer itself when it is one
row (a sweep row, a plan entry).
"""

_ROW_LISTS = ("results", "ranked", "runs")


def _get(row, key):
    """row[key] for a nested ("memory_bytes": {"total": ..}) or a flat ("memory_bytes.total")
    row, key written "memory_bytes.total"; None when the row has none."""
    if key in row:
        return row[key]
    head, _, rest = key.partition(".")
    sub = row.get(head)
    if rest and isinstance(sub, dict):
        return _get(sub, rest)
    return None


def _fits(row):
    fits = row.get("fits")
    return True if fits is None and "gpus" in row and "valid" not in row else fits


class Result(dict):
    """One answer (a dict). For answers with a row per strategy, .fits, .memory and .step are
    dicts keyed by the row's strategy ("zero3"; "deepspeed:zero3" when the rows' frameworks
    differ, as with framework="all"); for a single row they are its own values."""

    def rows(self):
        """The answer's rows (a list of dicts), or None when it is itself one row."""
        for key in _ROW_LISTS:
            if isinstance(self.get(key), list):
                return self[key]
        return None

    def _by_strategy(self, get):
        rows = self.rows()
        if rows is None:
            return get(self)
        several = len({r.get("framework") for r in rows}) > 1
        out = {}
        for i, r in enumerate(rows):
            name = r.get("strategy") or r.get("name") or str(i)
            if several and r.get("framework"):
                name = "%s:%s" % (r["framework"], name)
            out.setdefault(name, get(r))
        return out

    @property
    def fits(self):
        """Whether the configuration fits the GPU and the host (bool, or a dict of them)."""
        return self._by_strategy(_fits)

    @property
    def memory(self):
        """Memory per GPU in bytes (memory_bytes.total; None where the row has none)."""
        return self._by_strategy(lambda r: _get(r, "memory_bytes.total"))

    @property
    def step(self):
        """Step time in seconds (step_time_seconds.total; None where the row has none, e.g.
        compare's rows, whose step times are in ["best"])."""
        return self._by_strategy(lambda r: _get(r, "step_time_seconds.total"))

    def to_dataframe(self):
        """A pandas DataFrame with a row per strategy (or this one row), nested keys flattened
        into "a.b" columns. Raises ImportError when pandas is not installed."""
        rows = self.rows()
        return _frame([self] if rows is None else rows)


class Rows(list):
    """sweep's answer: a list of Result rows, one per grid point; .fits, .memory and .step are
    lists in row order."""

    @property
    def fits(self):
        return [r.fits for r in self]

    @property
    def memory(self):
        return [r.memory for r in self]

    @property
    def step(self):
        return [r.step for r in self]

    def to_dataframe(self):
        """A pandas DataFrame with a row per grid point. Raises ImportError without pandas."""
        return _frame(list(self))


def _frame(rows):
    try:
        import pandas
    except ImportError as e:
        raise ImportError("zerosim: to_dataframe() needs pandas (pip install pandas, or Debian's "
                          "python3-pandas); the answer itself is a plain dict/list") from e
    return pandas.json_normalize([dict(r) for r in rows])
