"""zerosim as a Python library: the simulator's commands over libzerosim.so (ctypes).

    import zerosim
    r = zerosim.estimate(model="llama-2-7b", gpus=8, seq_len=4096, checkpointing="full")
    r["results"][0]["memory_bytes"]["total"]

Each function takes the command line's flags as keywords (_ for -: seq_len is --seq-len; True
is a switch, a list a comma list) and returns what `zerosim COMMAND ... --format json` prints,
as plain dicts and lists. A misspelled keyword raises TypeError with the command line's
"did you mean" text; a refused configuration or file raises zerosim.Error (.code, .message).

The answers are dicts (and sweep's a list of them) with a few conveniences on top: .fits,
.memory and .step read the per-strategy figures, .to_dataframe() makes a pandas DataFrame
(pandas is optional: without it to_dataframe raises ImportError saying so).

    rows = zerosim.sweep(model="llama-2-70b", gpus=[64, 128, 256], strategy="zero3")
    df = rows.to_dataframe()          # one row per grid point, nested keys as "a.b" columns

The library: $ZEROSIM_LIB, else the libzerosim.so installed with this package (pip install
./src/python), else build/libzerosim.so of the repository this package lies in, else
libzerosim.so from the system loader. The catalogs (models/, hardware/): $ZEROSIM_DATA, else
the copies installed with the package, else the repository's.
"""
import ctypes
import json
import os

from zerosim.results import Result, Rows

__all__ = ["Error", "Result", "Rows", "call", "estimate", "compare", "plan", "sweep", "validate",
           "report", "list_models", "list_hardware", "version", "api_version"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))
_lib = None


class Error(Exception):
    """A request zerosim refused: code 2 (usage), 3 (bad input file) or 4 (output)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def _find():
    """(library path or None for the system's, catalog directory or None): see the module text."""
    own = os.path.join(_HERE, "libzerosim.so")
    repo_lib = os.path.join(_REPO, "build", "libzerosim.so")
    path = os.environ.get("ZEROSIM_LIB") or next(
        (p for p in (own, repo_lib) if os.path.exists(p)), None)
    data = next((d for d in (os.path.join(_HERE, "data"), _REPO)
                 if os.path.isdir(os.path.join(d, "models")) and os.path.isdir(os.path.join(d, "hardware"))),
                None)
    return path, data


def _load():
    global _lib
    if _lib is not None:
        return _lib
    path, data = _find()
    # The library reads $ZEROSIM_DATA on each call: the installed or repository catalogs,
    # unless the caller named others.
    if data and not os.environ.get("ZEROSIM_DATA"):
        os.environ["ZEROSIM_DATA"] = data
    lib = ctypes.CDLL(path or "libzerosim.so")
    lib.zs_call.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.zs_call.restype = ctypes.c_int
    lib.zs_free.argtypes = [ctypes.c_void_p]
    lib.zs_free.restype = None
    lib.zs_version.argtypes = []
    lib.zs_version.restype = ctypes.c_char_p
    lib.zs_api_version.argtypes = []
    lib.zs_api_version.restype = ctypes.c_int
    _lib = lib
    return lib


def version():
    """The library's release ("0.14.0")."""
    return _load().zs_version().decode()


def api_version():
    """The request interface's version (ZS_API_VERSION of the library loaded: 1)."""
    return _load().zs_api_version()


def library_path():
    """The file the package loads (None: the system loader's libzerosim.so)."""
    return _find()[0]


def call_raw(request):
    """Send one request (a dict, or its JSON text); returns (exit status, the answer's text)."""
    lib = _load()
    text = request if isinstance(request, str) else json.dumps(request)
    out = ctypes.c_void_p()
    rc = lib.zs_call(text.encode(), ctypes.byref(out))
    if not out.value:
        raise MemoryError("zerosim: out of memory")
    try:
        answer = ctypes.string_at(out.value).decode()
    finally:
        lib.zs_free(out)
    return rc, answer


def _answer(command, settings):
    """Run COMMAND; its answer's text, or the error raised (TypeError for an unknown keyword)."""
    request = {"command": command}
    for key, value in settings.items():
        request[key.replace("_", "-")] = value
    rc, answer = call_raw(request)
    if answer.startswith('{"error":'):
        err = json.loads(answer)["error"]
        if err["code"] == 2 and err["message"].startswith("unknown option --"):
            raise TypeError("zerosim.%s: %s" % (command, err["message"]))
        raise Error(err["code"], err["message"])
    return answer


def call(command, **settings):
    """Run COMMAND with the flags as keywords; the parsed JSON answer as a Result (a dict;
    sweep: Rows, a list of Result rows)."""
    answer = _answer(command, settings)
    if command == "sweep":
        return Rows(Result(json.loads(line)) for line in answer.splitlines() if line.strip())
    return Result(json.loads(answer))


def estimate(**settings):
    """`zerosim estimate`: memory, communication, step time and cost per strategy."""
    return call("estimate", **settings)


def compare(**settings):
    """`zerosim compare`: the strategy decision (memory, largest batch, fewest GPUs, cost)."""
    return call("compare", **settings)


def plan(**settings):
    """`zerosim plan`: the configurations that fit, best first."""
    return call("plan", **settings)


def sweep(**settings):
    """`zerosim sweep`: one dict per grid row (lists or ranges such as gpus="8:64:x2")."""
    return call("sweep", **settings)


def validate(*files, **settings):
    """`zerosim validate FILE...`: predicted against measured step times."""
    if files:
        settings["args"] = list(files)
    return call("validate", **settings)


def report(*, output=None, **settings):
    """`zerosim report`: the self-contained HTML page (compare's arguments, runs="FILE" adds
    validation) as a string; written to the file output too when given."""
    page = _answer("report", settings)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(page)
    return page


def list_models():
    """The model catalog's names."""
    return list(call("list", what="models")["models"])


def list_hardware():
    """The hardware profiles' names."""
    return list(call("list", what="hardware")["hardware"])
