"""zs_build.py -- the build backend of `pip install ./src/python` (PEP 517), standard library only.

It needs nothing to be installed or downloaded (no setuptools, no wheel package: pyproject.toml
requires nothing), so pip installs offline with any Python 3.8+, Debian's or pyenv's:

    make && pip install ./src/python            # or: --no-build-isolation --no-index --target DIR

The wheel holds the pure-Python package (zerosim/*.py) and, as package data,
  - the shared library: $ZEROSIM_LIB when set at install time, else the repository's
    build/libzerosim.so, else one built with `make build/libzerosim.so` in the repository;
    none when all three fail (the installed package then loads the system's libzerosim.so);
  - the catalogs the library reads, models/ and hardware/, as zerosim/data/ (the package points
    the library at them through $ZEROSIM_DATA unless the caller set it).
The wheel is tagged py3-none-<platform>: the library is machine code, the Python is not.
"""
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))  # src/python -> the repository
NAME = "zerosim"


def _version():
    """ZS_VERSION of src/cmd/commands.h: one release number for the CLI and the package."""
    try:
        with open(os.path.join(REPO, "src", "cmd", "commands.h"), encoding="utf-8") as f:
            m = re.search(r'#define ZS_VERSION "([0-9][^"]*)"', f.read())
        return m.group(1) if m else "0"
    except OSError:
        return "0"


def _library():
    """The libzerosim.so to ship, or None (a note on stderr)."""
    named = os.environ.get("ZEROSIM_LIB")
    if named:
        if os.path.isfile(named):
            return named
        print("zs_build: ZEROSIM_LIB=%s is not a file" % named, file=sys.stderr)
    built = os.path.join(REPO, "build", "libzerosim.so")
    if not os.path.isfile(built) and os.path.isfile(os.path.join(REPO, "Makefile")) and shutil.which("make"):
        # stdout to stderr: pip reads a hook's answer, not make's log.
        subprocess.run(["make", "-C", REPO, "build/libzerosim.so"], stdout=sys.stderr, check=False)
    if os.path.isfile(built):
        return built
    print("zs_build: no libzerosim.so (run make first, or set ZEROSIM_LIB); the installed package "
          "will look for the system's", file=sys.stderr)
    return None


def _files():
    """(name in the wheel, file on disk) for the package, its library and its catalogs."""
    pkg = os.path.join(HERE, NAME)
    out = [(NAME + "/" + f, os.path.join(pkg, f)) for f in sorted(os.listdir(pkg)) if f.endswith(".py")]
    lib = _library()
    if lib:
        out.append((NAME + "/libzerosim.so", lib))
    for kind in ("models", "hardware"):
        top = os.path.join(REPO, kind)
        for root, dirs, names in os.walk(top):
            dirs.sort()
            for f in sorted(names):
                path = os.path.join(root, f)
                out.append(("%s/data/%s" % (NAME, os.path.relpath(path, REPO).replace(os.sep, "/")), path))
    return out


def _metadata(version):
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: Memory planning and step-time "
            "simulation for large-model training (ctypes over libzerosim)\nRequires-Python: >=3.8\n"
            "Provides-Extra: dataframe\nRequires-Dist: pandas; extra == \"dataframe\"\n" % (NAME, version))


def _tag():
    return "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


# PEP 517 hooks ------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    """Nothing: the backend is the standard library."""
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """Write zerosim-VERSION-py3-none-PLATFORM.whl into wheel_directory; returns its name."""
    version = _version()
    info = "%s-%s.dist-info" % (NAME, version)
    wheel_name = "%s-%s-%s.whl" % (NAME, version, _tag())
    extra = {info + "/METADATA": _metadata(version).encode(),
             info + "/WHEEL": ("Wheel-Version: 1.0\nGenerator: zs_build\nRoot-Is-Purelib: false\n"
                               "Tag: %s\n" % _tag()).encode(),
             info + "/top_level.txt": (NAME + "\n").encode()}
    record = []
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, src in _files():
            with open(src, "rb") as f:
                data = f.read()
            zi = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if arc.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
            record.append("%s,%s,%d" % (arc, _digest(data), len(data)))
        for arc, data in extra.items():
            z.writestr(arc, data)
            record.append("%s,%s,%d" % (arc, _digest(data), len(data)))
        record.append(info + "/RECORD,,")
        z.writestr(info + "/RECORD", "\n".join(record) + "\n")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The package's own sources (not the C library's) as zerosim-VERSION.tar.gz."""
    version = _version()
    base = "%s-%s" % (NAME, version)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for f in ("pyproject.toml", "zs_build.py", NAME):
            t.add(os.path.join(HERE, f), arcname=base + "/" + f,
                  filter=lambda ti: None if "__pycache__" in ti.name else ti)
        data = _metadata(version).encode()
        ti = tarfile.TarInfo(base + "/PKG-INFO")
        ti.size = len(data)
        import io
        t.addfile(ti, io.BytesIO(data))
    return name
