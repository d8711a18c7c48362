"""The Python side of the testing fixture library (upstream ``tvm_ffi.testing``'s names).

Upstream apache/tvm-ffi builds a small C++ library of test fixtures
(``src/ffi/testing/testing.cc``): global functions named ``testing.*``
(``testing.echo``, ``testing.add_one``, ``testing.schema_id_int``, ...) and
reflected object types (``testing.TestIntPair``, ``testing.TestObjectBase``,
...). Test suites written for upstream import this module for them. tvmffi
does not ship that library; built against tvmffi's headers (as
``tests/upstream_python/run.sh`` does), it is loaded from:

1. the path given to :func:`load_fixture_library`, or
2. the environment variable ``TVMFFI_TESTING_LIB``, or
3. ``lib/libtvm_ffi_testing.so`` inside the tvmffi package, when present.

Importing this module loads it (2 or 3) when it can; without it the module
still imports: the fixture classes exist but cannot be constructed, and
:func:`fixture_library` returns None (tests then skip). Once loaded:

* every ``testing.<name>`` global function is the attribute ``<name>`` of this
  module (``tvmffi.testing.schema_id_int(1)``);
* the fixture classes (``TestIntPair``, ``TestObjectBase``, ...) are bound to
  their types: fields are properties, methods are methods, and the class
  constructs the object through the type's ``__ffi_init__``;
* :func:`create_object` makes any reflected object from field values.

:func:`run_with_gpu_lock` serializes GPU work of parallel test processes on a
machine-wide file lock.
"""

from __future__ import annotations

import ctypes
import getpass
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, TypeVar

from . import _reflection
from ._core import Function, Object
from ._lockfile import FileLock
from .registry import get_global_func, list_global_func_names

__all__ = [
    "TESTING_LIB_ENV",
    "TestCompare",
    "TestCustomCompare",
    "TestCustomHash",
    "TestEqWithoutHash",
    "TestFrozenCxx",
    "TestHash",
    "TestIntPair",
    "TestNonCopyable",
    "TestObjectBase",
    "TestObjectDerived",
    "TestObjectPtrHolder",
    "add_one",
    "create_object",
    "fixture_library",
    "load_fixture_library",
    "make_unregistered_object",
    "run_with_gpu_lock",
]

#: The environment variable that names the testing library to load instead of the bundled one.
TESTING_LIB_ENV = "TVMFFI_TESTING_LIB"
_LIB_NAME = "libtvm_ffi_testing.so"
_R = TypeVar("_R")
_C = TypeVar("_C", bound=type)

# -- the fixture library -----------------------------------------------------

_loaded: dict[str, ctypes.CDLL] = {}


# c_class options of fixtures whose upstream declaration asks for them.
_C_CLASS_OPTIONS: dict[str, dict[str, bool]] = {
    "testing.TestCxxClassDerived": {"eq": True, "order": True, "unsafe_hash": True},
}


def _default_library_path() -> str | None:
    env = os.environ.get(TESTING_LIB_ENV)
    if env:
        return env
    bundled = Path(__file__).parent / "lib" / _LIB_NAME
    return str(bundled) if bundled.is_file() else None


def fixture_library() -> str | None:
    """The path of the loaded fixture library, or None when none is loaded."""
    return next(iter(_loaded), None)


def load_fixture_library(path: str | os.PathLike[str] | None = None) -> str | None:
    """Load the fixture library (see the module's doc for where it is looked for).

    Returns its path, or None when no path is given and none is found.
    OSError when the library does not load. Loading twice is harmless.
    """
    explicit = path is not None
    target = os.fspath(path) if explicit else _default_library_path()
    if target is None:
        return None
    if target not in _loaded:
        try:
            # RTLD_GLOBAL: it binds to the runtime tvmffi loaded, as kernel libraries do.
            _loaded[target] = ctypes.CDLL(target, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            if explicit or os.environ.get(TESTING_LIB_ENV):
                raise
            return None
    _bind_pending()
    _export_globals()
    return target


def _export_globals() -> None:
    """Each ``testing.<name>`` global function as the module attribute ``<name>``."""
    module = sys.modules[__name__]
    for full in list_global_func_names():
        if not full.startswith("testing."):
            continue
        name = full[len("testing.") :]
        if name.isidentifier() and name not in _OWN_NAMES and not hasattr(module, name):
            setattr(module, name, get_global_func(full))


def __getattr__(name: str) -> Function:
    """``testing.<name>`` global functions registered after this module was imported."""
    if not name.startswith("__"):
        f = get_global_func(f"testing.{name}", allow_missing=True)
        if f is not None:
            setattr(sys.modules[__name__], name, f)
            return f
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- fixture classes ---------------------------------------------------------

_pending: list[tuple[type, str, dict[str, Any]]] = []


def _fixture(type_key: str, **options: Any) -> Callable[[_C], _C]:
    """Bind the class to ``type_key`` now, or when the fixture library is loaded."""

    def decorate(cls: _C) -> _C:
        cls.__tvm_ffi_type_key__ = type_key  # type: ignore[attr-defined]
        if "__init__" not in vars(cls) and options.get("init", True):

            def __init__(self: Object, *args: Any, **kwargs: Any) -> None:
                raise RuntimeError(
                    f"{type_key} is not registered: load the fixture library "
                    f"(tvmffi.testing.load_fixture_library, or {TESTING_LIB_ENV})"
                )

            cls.__init__ = __init__  # type: ignore[misc]
            cls.__tvmffi_placeholder_init__ = __init__  # type: ignore[attr-defined]
        _pending.append((cls, type_key, options))
        _bind_pending()
        return cls

    return decorate


def _bind_pending() -> None:
    still: list[tuple[type, str, dict[str, Any]]] = []
    for cls, key, options in _pending:
        info = _reflection.type_info(key)
        if info is None:
            still.append((cls, key, options))
            continue
        placeholder = vars(cls).get("__tvmffi_placeholder_init__")
        if placeholder is not None and vars(cls).get("__init__") is placeholder:
            del cls.__init__  # type: ignore[misc]
        # The fixtures are @c_class types, as upstream declares them.
        from .dataclasses import c_class

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c_class(
                key,
                init=options.get("init", True),
                frozen=options.get("frozen", False),
                **_C_CLASS_OPTIONS.get(key, {}),
            )(cls)
    _pending[:] = still


@_fixture("testing.TestObjectBase")
class TestObjectBase(Object):
    """Fields ``v_i64`` (default 10), ``v_f64`` (10.0), ``v_str`` ("hello"); method ``add_i64``."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestIntPair")
class TestIntPair(Object):
    """Fields ``a`` and ``b``; method ``sum``; ``TestIntPair(a, b)``."""

    __test__ = False
    __slots__ = ()
    # Annotated as upstream's: fields(TestIntPair) resolve their types from these.
    a: int
    b: int


@_fixture("testing.TestFrozenCxx", frozen=True)
class TestFrozenCxx(Object):
    """Fields ``value`` and ``tag``, read-only from Python."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestObjectDerived")
class TestObjectDerived(TestObjectBase):
    """A TestObjectBase with ``v_map`` and ``v_array``."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestObjectPtrHolder")
class TestObjectPtrHolder(Object):
    """Fields ``value`` (a TestObjectBase) and ``optional_value`` (one, or None)."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestNonCopyable")
class TestNonCopyable(Object):
    """Field ``value``; its C++ type cannot be copied."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.SchemaAllTypes")
class _SchemaAllTypes(Object):
    """A field of every kind of type schema, and methods over them."""

    __slots__ = ()


@_fixture("testing.TestCompare")
class TestCompare(Object):
    """``key``, ``name``, and ``ignored_field``, which comparisons skip."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestHash")
class TestHash(Object):
    """``key``, ``name``, and ``hash_ignored``, which hashing skips."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCustomHash")
class TestCustomHash(Object):
    """``key`` and ``label``; its C++ hash hook hashes ``key`` only."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCustomCompare")
class TestCustomCompare(Object):
    """``key`` and ``label``; its C++ comparison hooks compare ``key`` only."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestEqWithoutHash")
class TestEqWithoutHash(Object):
    """``key`` and ``label``; an equality hook and no hash hook."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCxxClassBase")
class _TestCxxClassBase(Object):
    """``v_i64`` and ``v_i32``; the Python constructor stores ``v_i64 + 1`` and ``v_i32 + 2``."""

    __slots__ = ()
    v_i64: int
    v_i32: int
    not_field_1 = 1
    not_field_2 = 2

    def __init__(self, v_i64: int, v_i32: int) -> None:
        info = type(self).__tvm_ffi_type_info__  # type: ignore[attr-defined]
        ffi_init = _reflection.type_attr(info.type_index, "__ffi_init__")
        _reflection.init_handle_by_constructor(self, ffi_init, v_i64 + 1, v_i32 + 2)


@_fixture("testing.TestCxxClassDerived")
class _TestCxxClassDerived(_TestCxxClassBase):
    """A _TestCxxClassBase with ``v_f64`` and ``v_f32``."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _init_from_ffi(self, args, kwargs)


@_fixture("testing.TestCxxClassDerivedDerived")
class _TestCxxClassDerivedDerived(_TestCxxClassDerived):
    """A _TestCxxClassDerived with ``v_str`` and ``v_bool``."""

    __slots__ = ()


@_fixture("testing.TestCxxIntEnum", init=False)
class _TestCxxIntEnum(Object):
    """An integer enum type of the fixture library (entries ``low``=10, ``high``=20)."""

    __slots__ = ()


@_fixture("testing.TestCxxStrEnum", init=False)
class _TestCxxStrEnum(Object):
    """A string enum type of the fixture library (entries ``add``="+", ``mul``="*")."""

    __slots__ = ()


@_fixture("testing.TestCxxEnumHolder")
class _TestCxxEnumHolder(Object):
    """Fields ``priority`` (a _TestCxxIntEnum) and ``opcode`` (a _TestCxxStrEnum)."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCxxInitSubset")
class _TestCxxInitSubset(Object):
    """``required_field`` in the constructor; ``optional_field`` and ``note`` not."""

    __slots__ = ()


@_fixture("testing.TestCxxKwOnly")
class _TestCxxKwOnly(Object):
    """Keyword-only ``x``, ``y``, ``z`` and ``w`` (with a default)."""

    __slots__ = ()


@_fixture("testing.TestCxxAutoInit")
class _TestCxxAutoInit(Object):
    """``a``, ``d`` (default), keyword-only ``c``; ``b`` is not in the constructor."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCxxAutoInitSimple")
class _TestCxxAutoInitSimple(Object):
    """Positional ``x`` and ``y``."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCxxAutoInitAllInitOff")
class _TestCxxAutoInitAllInitOff(Object):
    """``x``, ``y``, ``z``, none of them in the constructor."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCxxAutoInitKwOnlyDefaults")
class _TestCxxAutoInitKwOnlyDefaults(Object):
    """Positional and keyword-only fields, with and without defaults, and a hidden one."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCxxNoAutoInit", init=False)
class _TestCxxNoAutoInit(Object):
    """``x`` and ``y``; the type has no constructor."""

    __test__ = False
    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "`testing.TestCxxNoAutoInit` cannot be constructed directly: it has no __ffi_init__"
        )


@_fixture("testing.TestCxxAutoInitParent")
class _TestCxxAutoInitParent(Object):
    """``parent_required`` and ``parent_default``."""

    __test__ = False
    __slots__ = ()


@_fixture("testing.TestCxxAutoInitChild")
class _TestCxxAutoInitChild(_TestCxxAutoInitParent):
    """A parent with ``child_required`` and keyword-only ``child_kw_only``."""

    __test__ = False
    __slots__ = ()


def _init_from_ffi(self: Object, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    info = type(self).__tvm_ffi_type_info__  # type: ignore[attr-defined]
    ffi_init = _reflection.type_attr(info.type_index, "__ffi_init__")
    if ffi_init is None:
        raise TypeError(f"{info.type_key} has no __ffi_init__")
    _reflection.init_handle_by_constructor(self, ffi_init, *_reflection.pack_kwargs(args, kwargs))


# -- functions ---------------------------------------------------------------


def create_object(type_key: str, **kwargs: Any) -> Object:
    """A new object of the reflected type ``type_key``, its fields set from ``kwargs``
    (the others get their defaults; TypeError for a required one left out)."""
    return _reflection.make_object(type_key, **kwargs)


def make_unregistered_object() -> Object:
    """An object of a type that has no Python class (``testing.make_unregistered_object``)."""
    return get_global_func("testing.make_unregistered_object")()


def add_one(x: int) -> int:
    """``x + 1``, computed in C++ (``testing.add_one``)."""
    return get_global_func("testing.add_one")(x)


_GPU_LOCK_ENV = "TVM_FFI_TEST_LOCK_DIR"
_gpu_lock_path: list[Path] = []


def _gpu_lock_file() -> Path:
    if not _gpu_lock_path:
        folder = os.environ.get(_GPU_LOCK_ENV)
        if folder:
            lock_dir = Path(folder).expanduser()
        else:
            try:
                user = getpass.getuser()
            except Exception:
                user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
            lock_dir = Path(tempfile.gettempdir()) / f"tvm-ffi-test-locks-{user}"
        lock_dir.mkdir(parents=True, exist_ok=True)
        _gpu_lock_path.append(lock_dir / "gpu.lock")
    return _gpu_lock_path[0]


def run_with_gpu_lock(func: Callable[..., _R], /, *args: Any, **kwargs: Any) -> _R:
    """``func(*args, **kwargs)`` while holding the machine-wide GPU test lock.

    Parallel test processes that each use the GPU serialize on it. The lock
    file lies in ``$TVM_FFI_TEST_LOCK_DIR`` or a per-user folder of the
    temporary directory (the same place upstream's helper uses, so both
    packages' tests share it).
    """
    with FileLock(str(_gpu_lock_file())):
        return func(*args, **kwargs)


try:  # pytest marks, for test files that use them (pytest is not a dependency)
    import pytest as _pytest

    requires_py310 = _pytest.mark.skipif(sys.version_info < (3, 10), reason="requires Python 3.10+")
    requires_py312 = _pytest.mark.skipif(sys.version_info < (3, 12), reason="requires Python 3.12+")
    requires_py313 = _pytest.mark.skipif(sys.version_info < (3, 13), reason="requires Python 3.13+")
except ImportError:  # pragma: no cover
    pass

_OWN_NAMES = frozenset(n for n in dir(sys.modules[__name__]) if not n.startswith("__"))

# Upstream's testing is a package whose submodule ``testing.testing`` holds the
# fixture classes and the ``requires_py3xx`` marks: the same names, here.
sys.modules.setdefault(__name__ + ".testing", sys.modules[__name__])

load_fixture_library()

# A package path, so that `import tvm_ffi.testing.testing` reaches the alias above.
__path__: list[str] = []


# The C++ enums, declared as upstream declares them.
from .dataclasses import IntEnum as _IntEnum  # noqa: E402
from .dataclasses import StrEnum as _StrEnum  # noqa: E402
from .dataclasses import entry as _entry  # noqa: E402


class _TestCxxIntEnum(_IntEnum, type_key="testing.TestCxxIntEnum"):  # type: ignore[no-redef]
    low = _entry(value=10)
    high = _entry(value=20)


class _TestCxxStrEnum(_StrEnum, type_key="testing.TestCxxStrEnum"):  # type: ignore[no-redef]
    add = _entry(value="+")
    mul = _entry(value="*")
