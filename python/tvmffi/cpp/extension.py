"""Build shared libraries from sources with the system compiler, cached, and load them.

A build goes to ``build_directory`` or to ``<cache>/<name>_<hash>``, where the
cache is ``$TVM_FFI_CACHE_DIR`` (else ``~/.cache/tvm-ffi``) and the hash covers
the sources, the flags, the compilers and the package version: the same
request builds once. A file lock in the build folder lets two processes (or
threads) build the same module at once (the second waits, then finds the
library); the inline sources are written under that lock and every temporary
file has a name of its own, so builds into one folder never mix. A compiler
error is one RuntimeError that shows the command and the compiler's output.

``load``/``load_inline`` load the library through a hard link named after its
hash (``<name>.<hash>.so``): a process has one copy of a library per path, so a
rebuild into the same folder with new sources loads the new library, and the
same sources load the one already loaded.

``embed_cubin={"name": data}`` puts CUDA binaries (cubin, fatbin or PTX) into
the library: the objects are joined (``ld -r``) and each binary is embedded
between the symbols ``__tvm_ffi__cubin_<name>`` and ``..._end``
(:func:`tvmffi.utils.embed_cubin.embed_cubin`), which ``TVM_FFI_EMBED_CUBIN(name)``
of ``<tvm/ffi/extra/cuda/cubin_launcher.h>`` declares and loads on first use.
The C++ sources then also get the CUDA toolkit's headers, and the library its
runtime (libcudart).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import libinfo
from .._lockfile import FileLock
from ..module import Module, load_module

_CXX_EXTS = (".cc", ".cpp", ".cxx", ".c++", ".C")
_C_EXTS = (".c",)
_CUDA_EXTS = (".cu",)
_OBJ_EXTS = (".o", ".obj")

# Upstream's prelude, plus <sstream>: upstream's error.h brings it and inline
# sources use std::ostringstream on that strength; ours keeps kernels off it.
_INLINE_HEADERS = (
    "#include <sstream>\n"
    "#include <tvm/ffi/container/tensor.h>\n"
    "#include <tvm/ffi/dtype.h>\n"
    "#include <tvm/ffi/error.h>\n"
    "#include <tvm/ffi/extra/c_env_api.h>\n"
    "#include <tvm/ffi/function.h>\n"
)


def _cache_root() -> Path:
    root = os.environ.get("TVM_FFI_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "tvm-ffi"


def _as_list(seq: Sequence[str] | str | None) -> list[str]:
    if seq is None:
        return []
    if isinstance(seq, str):
        return [seq]
    return [str(s) for s in seq]


def _functions_map(functions: Mapping[str, str] | Sequence[str] | str | None) -> dict[str, str]:
    if functions is None:
        return {}
    if isinstance(functions, str):
        return {functions: ""}
    if isinstance(functions, Mapping):
        return {str(k): str(v or "") for k, v in functions.items()}
    return {str(f): "" for f in functions}


def _cpp_string(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return out.replace("\r", "\\r").replace("\t", "\\t")


def _with_exports(source: str, functions: Mapping[str, str]) -> str:
    """The source, after the SDK headers, with an export for each named function."""
    lines = [_INLINE_HEADERS, source, ""]
    for name, doc in functions.items():
        lines.append(f"TVM_FFI_DLL_EXPORT_TYPED_FUNC({name}, {name});")
        if doc:
            lines.append(f'TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC({name}, "{_cpp_string(doc)}");')
    return "\n".join(lines) + "\n"


_ARCH_FLAGS = ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code")


def _detected_arches() -> list[str]:
    """The compute capabilities of this machine's GPUs ("90"), through the driver; [] if none."""
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return []
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return []
    found: list[str] = []
    for i in range(count.value):
        dev, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76
        if (
            cuda.cuDeviceGet(ctypes.byref(dev), i) == 0
            and cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, dev) == 0
            and cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev) == 0
        ):
            arch = f"{major.value}{minor.value}"
            if arch not in found:
                found.append(arch)
    return found


def _listed_arches(extra_cuda_cflags: list[str]) -> list[str] | None:
    """The GPUs to build for: None when the caller's flags name them, else
    TVM_FFI_CUDA_ARCH_LIST ("8.0 9.0a", upstream's variable) or [] (detect at build time)."""
    if any(f.split("=")[0] in _ARCH_FLAGS for f in extra_cuda_cflags):
        return None
    listed = os.environ.get("TVM_FFI_CUDA_ARCH_LIST", "").replace(";", " ").replace(",", " ")
    return [a.replace(".", "").replace("+PTX", "") for a in listed.split()]


def _cuda_arch_flags(arches: list[str] | None) -> list[str]:
    """nvcc's target flags for _listed_arches' answer; [] (detected) means this machine's GPUs,
    and with none nvcc's default.

    Without them nvcc targets its oldest supported GPU and ships PTX, which the driver
    compiles again when the module loads on a newer one. Detecting initialises the CUDA
    driver (~0.1 s), so it happens only when a build runs, never for a cached load.
    """
    if arches is None:
        return []
    if not arches:
        arches = _detected_arches()
    flags: list[str] = []
    for arch in arches:
        flags += ["-gencode", f"arch=compute_{arch},code=[sm_{arch},compute_{arch}]"]
    return flags


def _compiler(env: str, default: str) -> str:
    return os.environ.get(env) or shutil.which(default) or default


def _nvcc() -> str:
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (Path(home) / "bin" / "nvcc").is_file():
            return str(Path(home) / "bin" / "nvcc")
    found = shutil.which("nvcc")
    if found is None:
        raise RuntimeError(
            "tvmffi.cpp: CUDA sources need nvcc, which is not found "
            "(set CUDA_HOME or put nvcc on PATH)"
        )
    return found


def _cuda_home() -> Path | None:
    """The CUDA toolkit's folder (CUDA_HOME, CUDA_PATH, /usr/local/cuda, nvcc's), if any."""
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (Path(home) / "include" / "cuda.h").is_file():
            return Path(home)
    nvcc = shutil.which("nvcc")
    return Path(nvcc).resolve().parent.parent if nvcc else None


def _cubins(embed_cubin: Mapping[str, bytes] | None) -> dict[str, bytes]:
    """embed_cubin checked: C identifiers to non-empty bytes."""
    if not embed_cubin:
        return {}
    if not isinstance(embed_cubin, Mapping):
        raise TypeError(
            f"tvmffi.cpp: embed_cubin must map names to bytes, got {type(embed_cubin).__name__}"
        )
    out: dict[str, bytes] = {}
    for name, data in embed_cubin.items():
        if not (isinstance(name, str) and name.isidentifier() and name.isascii()):
            raise ValueError(
                f"tvmffi.cpp: embed_cubin name {name!r} is not a C identifier "
                f"(it names TVM_FFI_EMBED_CUBIN(<name>))"
            )
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(
                f"tvmffi.cpp: embed_cubin[{name!r}] must be bytes, got {type(data).__name__}"
            )
        if len(data) == 0:
            raise ValueError(f"tvmffi.cpp: embed_cubin[{name!r}] is empty")
        out[name] = bytes(data)
    return out


def _embed(objects: list[str], cubins: dict[str, bytes], build_dir: Path, out: Path) -> None:
    """Write ``out``: the objects joined into one, plus each binary between its symbols."""
    from ..utils.embed_cubin import embed_cubin

    current = out.with_name(out.name + ".joined.o")
    if len(objects) == 1:
        shutil.copyfile(objects[0], current)
    else:
        # One relocatable object, so that its references to the symbols bind to
        # the binaries embedded next (they are local once embedded).
        _run(["ld", "-r", "-o", str(current), *objects], build_dir)
    for name in sorted(cubins):
        path = build_dir / f"{name}.cubin"
        _write_atomically(path, cubins[name])
        embed_cubin(path, current, current, name)
    os.replace(current, out)


def _write_atomically(path: Path, data: str | bytes) -> None:
    """Write ``path`` whole through a temporary file of its own (unique per call)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def _versioned_link(target: Path, digest: str) -> Path:
    """A hard link ``<stem>.<digest><suffix>`` to the library just built (made once)."""
    link = target.with_name(f"{target.stem}.{digest}{target.suffix}")
    if link.is_file():
        return link
    tmp = link.with_name(f".{link.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        os.link(target, tmp)
    except OSError:  # no hard links here: a copy does as well
        shutil.copyfile(target, tmp)
    os.replace(tmp, link)
    return link


def _run(cmd: list[str], cwd: Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"tvmffi.cpp: the build failed (exit {proc.returncode}):\n"
            f"$ {shlex.join(cmd)}\n{proc.stdout}{proc.stderr}"
        )


@dataclasses.dataclass(frozen=True)
class _Options:
    """The build options every entry point shares, normalised once."""

    extra_cflags: list[str]
    extra_cuda_cflags: list[str]
    extra_ldflags: list[str]
    extra_include_paths: list[str]
    build_directory: str | None
    embed_cubin: Mapping[str, bytes] | None
    output: str | None

    @classmethod
    def of(
        cls,
        extra_cflags: Sequence[str] | None,
        extra_cuda_cflags: Sequence[str] | None,
        extra_ldflags: Sequence[str] | None,
        extra_include_paths: Sequence[str] | None,
        build_directory: str | None,
        embed_cubin: Mapping[str, bytes] | None,
        backend: str | None,
        output: str | None = None,
    ) -> _Options:
        if backend not in (None, "cuda"):
            raise ValueError(f"tvmffi.cpp: backend {backend!r} is not supported (only 'cuda')")
        return cls(
            _as_list(extra_cflags),
            _as_list(extra_cuda_cflags),
            _as_list(extra_ldflags),
            _as_list(extra_include_paths),
            build_directory,
            embed_cubin,
            output,
        )


def _build(
    name: str,
    files: list[str],
    key_text: str,
    opts: _Options,
    sources: Sequence[tuple[Path, str]] = (),
) -> tuple[str, str]:
    """Build (or find) the library; returns its path and its versioned link's
    (the same path for an object file). ``sources`` are written first, under the lock."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"tvmffi.cpp: invalid module name {name!r}")
    extra_cflags, extra_cuda_cflags = opts.extra_cflags, opts.extra_cuda_cflags
    extra_ldflags, extra_include_paths = opts.extra_ldflags, opts.extra_include_paths
    build_directory, output = opts.build_directory, opts.output
    cubins = _cubins(opts.embed_cubin)
    includes = [*extra_include_paths, *libinfo.include_paths()]
    lib_dir = str(Path(libinfo.find_libtvm_ffi()).parent)
    cxx, cc = _compiler("CXX", "c++"), _compiler("CC", "cc")
    has_cuda = any(f.endswith(_CUDA_EXTS) for f in files)
    nvcc = _nvcc() if has_cuda else ""
    # The cubin launcher's header needs the toolkit's headers and its runtime,
    # in C++ sources too.
    cuda_home = Path(nvcc).resolve().parent.parent if has_cuda else _cuda_home() if cubins else None
    if cubins and cuda_home is not None:
        includes.append(str(cuda_home / "include"))
    arches = _listed_arches(extra_cuda_cflags) if has_cuda else None
    arch_key = "auto" if arches == [] else " ".join(arches or [])
    from .. import __version__

    cubin_key = [f"{n}:{hashlib.sha256(d).hexdigest()}" for n, d in sorted(cubins.items())]
    key = "\0".join(
        [
            key_text,
            output or "",
            *extra_cflags,
            "|",
            *extra_cuda_cflags,
            arch_key,
            "|",
            *extra_ldflags,
            "|",
            *includes,
            "|",
            *cubin_key,
            cxx,
            cc,
            nvcc,
            __version__,
        ]
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    build_dir = (
        Path(build_directory).resolve() if build_directory else _cache_root() / f"{name}_{digest}"
    )
    build_dir.mkdir(parents=True, exist_ok=True)
    target = Path(output) if output else build_dir / f"{name}.so"
    if not target.is_absolute():
        target = build_dir / target
    stamp = build_dir / f".{target.name}.hash"
    with FileLock(build_dir / ".tvmffi.lock"):
        for path, text in sources:
            if not path.is_file() or path.read_text() != text:
                _write_atomically(path, text)
        object_only = target.suffix in _OBJ_EXTS
        if target.is_file() and stamp.is_file() and stamp.read_text() == digest:
            if object_only:
                return str(target), str(target)
            return str(target), str(_versioned_link(target, digest))
        inc = [f"-I{p}" for p in includes]
        # output="x.o": compile the one source into that object, no link.
        if object_only and (len(files) != 1 or files[0].endswith(_OBJ_EXTS)):
            raise ValueError(
                f"tvmffi.cpp: an object file output ({target.name}) takes exactly "
                f"one source file, got {len(files)}"
            )
        objects: list[str] = []
        arch_flags = _cuda_arch_flags(arches) if has_cuda else []
        for i, src in enumerate(files):
            if src.endswith(_OBJ_EXTS):
                objects.append(src)
                continue
            obj = (
                str(target) + ".tmp" if object_only else str(build_dir / f"{Path(src).stem}.{i}.o")
            )
            if src.endswith(_CUDA_EXTS):
                cmd = [
                    nvcc,
                    "-c",
                    "-std=c++17",
                    "-O2",
                    "-Xcompiler",
                    "-fPIC",
                    *inc,
                    *arch_flags,
                    *extra_cuda_cflags,
                    src,
                    "-o",
                    obj,
                ]
            elif src.endswith(_C_EXTS):
                cmd = [cc, "-c", "-O2", "-fPIC", *inc, *extra_cflags, src, "-o", obj]
            elif src.endswith(_CXX_EXTS):
                cmd = [cxx, "-c", "-std=c++17", "-O2", "-fPIC", *inc, *extra_cflags, src, "-o", obj]
            else:
                raise ValueError(
                    f"tvmffi.cpp: unknown kind of source file {src!r} (expected "
                    f".c, .cc/.cpp/.cxx, .cu or .o)"
                )
            _run(cmd, build_dir)
            objects.append(obj)
        if object_only:
            if cubins:
                _embed(objects, cubins, build_dir, target)
                os.remove(objects[0])  # the compiled object, now inside the target
            else:
                os.replace(objects[0], target)
            _write_atomically(stamp, digest)
            return str(target), str(target)
        if cubins:
            joined = build_dir / f"{name}.embedded.o"
            _embed(objects, cubins, build_dir, joined)
            objects = [str(joined)]
        link = [
            cxx,
            "-shared",
            *objects,
            "-o",
            str(target) + ".tmp",
            f"-L{lib_dir}",
            f"-Wl,-rpath,{lib_dir}",
            "-ltvm_ffi",
            *extra_ldflags,
        ]
        if cuda_home is not None:
            cuda_lib = cuda_home / "lib64"
            link += [f"-L{cuda_lib}", f"-Wl,-rpath,{cuda_lib}", "-lcudart"]
        _run(link, build_dir)
        os.replace(str(target) + ".tmp", target)  # a reader never sees a half-written library
        _write_atomically(stamp, digest)
        return str(target), str(_versioned_link(target, digest))


def _inline_files(
    name: str,
    cpp_sources: Sequence[str] | str | None,
    cuda_sources: Sequence[str] | str | None,
    functions: Mapping[str, str] | Sequence[str] | str | None,
) -> list[tuple[str, str]]:
    cpp = "\n".join(_as_list(cpp_sources))
    cuda = "\n".join(_as_list(cuda_sources))
    if not cpp and not cuda:
        raise ValueError("tvmffi.cpp: give cpp_sources or cuda_sources (both are empty)")
    exports = _functions_map(functions)
    # The exports go with the C++ source when there is one, else with the CUDA one.
    files = []
    if cpp:
        files.append((f"{name}.cc", _with_exports(cpp, exports)))
    if cuda:
        files.append((f"{name}.cu", _with_exports(cuda, {} if cpp else exports)))
    return files


def _build_inline(
    name: str,
    cpp_sources: Sequence[str] | str | None,
    cuda_sources: Sequence[str] | str | None,
    functions: Mapping[str, str] | Sequence[str] | str | None,
    opts: _Options,
) -> tuple[str, str]:
    """build_inline, returning the library's path and its versioned link's."""
    files = _inline_files(name, cpp_sources, cuda_sources, functions)
    key_text = "\0".join(f"{n}\0{text}" for n, text in files)
    digest = hashlib.sha256(key_text.encode()).hexdigest()[:16]
    src_dir = (
        Path(opts.build_directory).resolve()
        if opts.build_directory
        else _cache_root() / f"{name}_src_{digest}"
    )
    src_dir.mkdir(parents=True, exist_ok=True)
    sources = [(src_dir / fname, text) for fname, text in files]
    return _build(name, [str(path) for path, _ in sources], key_text, opts, sources)


def build_inline(
    name: str,
    *,
    cpp_sources: Sequence[str] | str | None = None,
    cuda_sources: Sequence[str] | str | None = None,
    functions: Mapping[str, str] | Sequence[str] | str | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | None = None,
    embed_cubin: Mapping[str, bytes] | None = None,
    backend: str | None = None,
    output: str | None = None,
) -> str:
    """Compile inline sources into a shared library; returns its path.

    ``functions`` (names, or names to docstrings) are exported from the
    library under their own names (``TVM_FFI_DLL_EXPORT_TYPED_FUNC``).
    ``embed_cubin`` maps names to CUDA binaries (cubin, fatbin or PTX bytes)
    that the library carries; the sources reach each with
    ``TVM_FFI_EMBED_CUBIN(name)`` and ``TVM_FFI_EMBED_CUBIN_GET_KERNEL(name,
    "kernel")`` of ``<tvm/ffi/extra/cuda/cubin_launcher.h>``.
    """
    opts = _Options.of(
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        build_directory,
        embed_cubin,
        backend,
        output,
    )
    return _build_inline(name, cpp_sources, cuda_sources, functions, opts)[0]


def load_inline(
    name: str,
    *,
    cpp_sources: Sequence[str] | str | None = None,
    cuda_sources: Sequence[str] | str | None = None,
    functions: Mapping[str, str] | Sequence[str] | str | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | None = None,
    embed_cubin: Mapping[str, bytes] | None = None,
    keep_module_alive: bool = True,
    backend: str | None = None,
) -> Module:
    """:func:`build_inline`, then load the library (its versioned link) as a Module."""
    opts = _Options.of(
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        build_directory,
        embed_cubin,
        backend,
    )
    _, path = _build_inline(name, cpp_sources, cuda_sources, functions, opts)
    return load_module(path, keep_module_alive=keep_module_alive)


def _build_files(
    name: str,
    sources: Sequence[str] | str | None,
    cpp_files: Sequence[str] | str | None,
    cuda_files: Sequence[str] | str | None,
    opts: _Options,
) -> tuple[str, str]:
    """build, returning the library's path and its versioned link's."""
    files = [
        str(Path(f).resolve())
        for f in (*_as_list(sources), *_as_list(cpp_files), *_as_list(cuda_files))
    ]
    if not files:
        raise ValueError("tvmffi.cpp.build: no source files given")
    for f in files:
        if not Path(f).is_file():
            raise FileNotFoundError(f"tvmffi.cpp.build: no source file {f}")
    key_text = "\0".join(f"{f}\0{Path(f).read_bytes().hex()}" for f in files)
    return _build(name, files, key_text, opts)


def build(
    name: str,
    *,
    sources: Sequence[str] | str | None = None,
    cpp_files: Sequence[str] | str | None = None,
    cuda_files: Sequence[str] | str | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | None = None,
    backend: str | None = None,
    output: str | None = None,
    embed_cubin: Mapping[str, bytes] | None = None,
) -> str:
    """Compile source files (by extension: .c, .cc/.cpp/.cxx, .cu, .o) into a shared library.

    The sources export their functions themselves (the TVM-FFI export macros).
    ``embed_cubin`` as for :func:`build_inline`. Returns the library's path.
    """
    opts = _Options.of(
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        build_directory,
        embed_cubin,
        backend,
        output,
    )
    return _build_files(name, sources, cpp_files, cuda_files, opts)[0]


def load(
    name: str,
    *,
    sources: Sequence[str] | str | None = None,
    cpp_files: Sequence[str] | str | None = None,
    cuda_files: Sequence[str] | str | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | None = None,
    keep_module_alive: bool = True,
    backend: str | None = None,
    embed_cubin: Mapping[str, bytes] | None = None,
) -> Module:
    """:func:`build`, then load the library (its versioned link) as a Module."""
    opts = _Options.of(
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        build_directory,
        embed_cubin,
        backend,
    )
    _, path = _build_files(name, sources, cpp_files, cuda_files, opts)
    return load_module(path, keep_module_alive=keep_module_alive)
