"""zerosim as a Python library: the simulator's commands over libzerosim.so (ctypes).

    import zerosim
    r = zerosim.estimate(model="llama-2-7b", gpus=8, seq_len=4096, checkpointing="full")
    r["results"][0]["memory_bytes"]["total"]

Each function takes the command line's flags as keywords (_ for -: seq_len is --seq-len; True
is a switch, a list a comma list) and returns what `zerosim COMMAND ... --format json` prints,
as plain dicts and lists. A misspelled keyword raises TypeError with the command line's
"did you mean" text; a refused configuration or file raises zerosim.Error (.code, .message).

The library: $ZEROSIM_LIB, else build/libzerosim.so of the repository this package lies in,
else libzerosim.so from the system loader. The catalogs (models/, hardware/): $ZEROSIM_DATA,
else the repository's when the library is the repository's.
"""
import ctypes
import json
import os

__all__ = ["Error", "call", "estimate", "compare", "plan", "sweep", "validate", "list_models",
           "list_hardware", "version"]

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_lib = None


class Error(Exception):
    """A request zerosim refused: code 2 (usage), 3 (bad input file) or 4 (output)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def _load():
    global _lib
    if _lib is not None:
        return _lib
    path = os.environ.get("ZEROSIM_LIB")
    repo_lib = os.path.join(_REPO, "build", "libzerosim.so")
    if not path and os.path.exists(repo_lib):
        path = repo_lib
        # The repository's catalogs, unless the caller named others.
        if not os.environ.get("ZEROSIM_DATA") and os.path.isdir(os.path.join(_REPO, "models")):
            os.environ["ZEROSIM_DATA"] = _REPO
    lib = ctypes.CDLL(path or "libzerosim.so")
    lib.zs_call.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.zs_call.restype = ctypes.c_int
    lib.zs_free.argtypes = [ctypes.c_void_p]
    lib.zs_free.restype = None
    lib.zs_version.argtypes = []
    lib.zs_version.restype = ctypes.c_char_p
    _lib = lib
    return lib


def version():
    """The library's release ("0.14.0")."""
    return _load().zs_version().decode()


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


def call(command, **settings):
    """Run COMMAND with the flags as keywords; the parsed JSON answer (sweep: a list of rows)."""
    request = {"command": command}
    for key, value in settings.items():
        request[key.replace("_", "-")] = value
    rc, answer = call_raw(request)
    if answer.startswith('{"error":'):
        err = json.loads(answer)["error"]
        if err["code"] == 2 and err["message"].startswith("unknown option --"):
            raise TypeError("zerosim.%s: %s" % (command, err["message"]))
        raise Error(err["code"], err["message"])
    if command == "sweep":
        return [json.loads(line) for line in answer.splitlines() if line.strip()]
    return json.loads(answer)


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


def list_models():
    """The model catalog's names."""
    return call("list", what="models")["models"]


def list_hardware():
    """The hardware profiles' names."""
    return call("list", what="hardware")["hardware"]
