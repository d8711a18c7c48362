"""Property-based tests of Python -> FFI conversion with hostile values (issue #25).

Hypothesis builds nested lists, tuples and dicts of ints, floats, str, bytes,
None, bools, numpy arrays with odd layouts and flags, tvmffi.Tensors, and
adversarial objects (an ``__index__`` or ``__dlpack__`` that raises, returns
the wrong type, or grows, shrinks or clears the container it is in). Each
value goes through tvmffi.convert and through an FFI function (a Python
function registered as one: Python -> FFI -> Python -> FFI -> Python). The
outcome must be what a pure-Python model of the conversion gives (the items
of each container as they were when its conversion began, hooks run in the
same order) or the same clear exception: never a crash, a hang or a value
that differs.

Bounded (``max_examples``) to run in a few seconds, also under ASan in CI
(.ci/test.sh, run_pytest asan). Hypothesis comes from Debian's
python3-hypothesis (.ci/setup-debian.sh); without it the file is skipped.
"""

from __future__ import annotations

import ctypes
import math
import operator
from typing import Any, Callable

import pytest

hypothesis = pytest.importorskip(
    "hypothesis", reason="hypothesis is not installed (Debian: apt install python3-hypothesis)"
)
np = pytest.importorskip("numpy")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import tvmffi  # noqa: E402

ECHO = tvmffi.Function(lambda x: x)

# No example database (nothing written into the work tree); no deadline
# (ASan builds are several times slower).
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CLEAR_ERRORS = (
    TypeError,
    ValueError,
    OverflowError,
    BufferError,
    RecursionError,
    KeyError,
    RuntimeError,
)


# --------------------------------------------------------------------------
# Recipes: plain data that describes a value; `build` makes a fresh value
# from one (hooks bound to the container they are in), so that the model and
# tvmffi each convert their own copy.
# --------------------------------------------------------------------------
ACTIONS = [
    "none",
    "clear",
    "append_many",
    "pop",
    "insert_front",
    "set_first",
    "raise",
    "wrong_type",
    "huge",
]
DTYPES = ["int8", "uint8", "int32", "int64", "float32", "float64"]
LAYOUTS = ["c", "fortran", "strided", "reversed", "empty", "scalar", "readonly", "readonly_strided"]

leaves = st.one_of(
    st.tuples(st.just("int"), st.integers(min_value=-(2**70), max_value=2**70)),
    st.tuples(st.just("float"), st.floats(allow_nan=True, allow_infinity=True)),
    st.tuples(st.just("str"), st.text(max_size=8)),
    st.tuples(st.just("bytes"), st.binary(max_size=8)),
    st.tuples(st.just("none")),
    st.tuples(st.just("bool"), st.booleans()),
    st.tuples(st.just("hook"), st.sampled_from(ACTIONS), st.integers(-5, 5)),
    st.tuples(
        st.just("array"), st.sampled_from(DTYPES), st.sampled_from(LAYOUTS), st.integers(0, 5)
    ),
    st.tuples(st.just("tensor"), st.sampled_from(DTYPES), st.integers(1, 4)),
    st.tuples(st.just("producer"), st.sampled_from(["ok", "raise", "not_capsule", "mutate"])),
)


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys = st.one_of(st.text(max_size=4), st.integers(-3, 3))
    return st.one_of(
        st.tuples(st.just("list"), st.lists(children, max_size=5)),
        st.tuples(st.just("tuple"), st.lists(children, max_size=4)),
        st.tuples(st.just("dict"), st.dictionaries(keys, children, max_size=4)),
    )


recipes = st.recursive(leaves, containers, max_leaves=10)
roots = containers(recipes)  # the top level is a container: hooks have one to change


class Hook:
    """An int-like whose __index__ changes the container it is in, or misbehaves."""

    def __init__(self, action: str, value: int, parent: Any) -> None:
        self.action, self.value, self.parent = action, value, parent

    def __index__(self) -> Any:
        mutate(self.parent, self.action)
        if self.action == "raise":
            raise KeyError("from __index__")
        if self.action == "wrong_type":
            return "not an int"  # noqa: PLE0305 (deliberately wrong)
        if self.action == "huge":
            return 2**64 + self.value
        return self.value


def mutate(parent: Any, action: str) -> None:
    if isinstance(parent, list):
        if action == "clear":
            parent.clear()
        elif action == "append_many":
            parent.extend(range(500))
        elif action == "pop" and parent:
            parent.pop()
        elif action == "insert_front":
            parent.insert(0, "inserted")
        elif action == "set_first" and parent:
            parent[0] = None
    elif isinstance(parent, dict):
        if action == "clear":
            parent.clear()
        elif action == "append_many":
            parent.update({f"added{k}": k for k in range(500)})
        elif action == "pop" and parent:
            parent.pop(next(iter(parent)))
        elif action == "set_first" and parent:
            parent[next(iter(parent))] = None


class Producer:
    """A DLPack producer (no buffer protocol, no exchange API)."""

    def __init__(self, mode: str, parent: Any) -> None:
        self.mode, self.parent = mode, parent
        self.tensor = tvmffi.from_dlpack(np.arange(3, dtype=np.float32))

    def __dlpack__(self, **kwargs: Any) -> Any:
        if self.mode == "raise":
            raise RuntimeError("from __dlpack__")
        if self.mode == "not_capsule":
            return 5
        if self.mode == "mutate":
            mutate(self.parent, "clear")
        return self.tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def make_array(dtype: str, layout: str, n: int) -> Any:
    base = (np.arange(max(n, 1) * 4) % 7 - 3).astype(dtype)
    if layout == "c":
        return base[:n].copy()
    if layout == "fortran":
        return np.asfortranarray(base[: 2 * max(n, 1)].reshape(2, max(n, 1)))
    if layout == "strided":
        return base[::2][:n]
    if layout == "reversed":
        return base[:n][::-1]
    if layout == "empty":
        return base[:0].reshape(0, 3)
    if layout == "scalar":
        return np.array(base[0])
    arr = base[:n].copy() if layout == "readonly" else base[::3][:n]
    arr.flags.writeable = False
    return arr


def build(recipe: Any, parent: Any = None) -> Any:
    kind = recipe[0]
    if kind in ("int", "float", "str", "bytes", "bool"):
        return recipe[1]
    if kind == "none":
        return None
    if kind == "hook":
        return Hook(recipe[1], recipe[2], parent)
    if kind == "array":
        return make_array(recipe[1], recipe[2], recipe[3])
    if kind == "tensor":
        return tvmffi.from_dlpack(make_array(recipe[1], "c", recipe[2]))
    if kind == "producer":
        return Producer(recipe[1], parent)
    if kind == "list" or kind == "tuple":
        out: list[Any] = []
        for child in recipe[1]:
            out.append(build(child, out))
        return out if kind == "list" else tuple(out)
    d: dict[Any, Any] = {}
    for key, child in recipe[1].items():
        d[key] = build(child, d)
    return d


# --------------------------------------------------------------------------
# The model: what tvmffi must give, in plain Python terms.
# --------------------------------------------------------------------------
def tensor_value(arr: Any) -> tuple[Any, ...]:
    return ("tensor", str(arr.dtype), tuple(arr.shape), arr.tolist())


def model(v: Any) -> Any:
    if v is None or isinstance(v, (bool, str, bytes, float)):
        return v
    if isinstance(v, (int, Hook)):
        return operator.index(v)  # past int64: an ffi.BigInt, the same int back
    if isinstance(v, np.ndarray):
        return tensor_value(v)
    if isinstance(v, tvmffi.Tensor):
        return tensor_value(np.from_dlpack(v))
    if isinstance(v, Producer):
        if v.mode == "raise":
            raise RuntimeError("from __dlpack__")
        if v.mode == "not_capsule":
            raise TypeError("did not return a DLPack capsule")
        if v.mode == "mutate":
            mutate(v.parent, "clear")
        return tensor_value(np.arange(3, dtype=np.float32))
    if isinstance(v, (list, tuple)):
        return [model(x) for x in tuple(v)]  # a snapshot of the items, then each in order
    return {model(k): model(x) for k, x in list(v.items())}


def observed(v: Any) -> Any:
    """tvmffi's result in the model's terms."""
    if isinstance(v, tvmffi.Array):
        return [observed(x) for x in v]
    if isinstance(v, tvmffi.Map):
        return {observed(k): observed(x) for k, x in v.items()}
    if isinstance(v, tvmffi.Tensor):
        return tensor_value(np.from_dlpack(v))
    if isinstance(v, np.ndarray):  # a numpy argument anywhere: numpy tensors come back
        return tensor_value(v)
    return v


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def outcome(fn: Callable[[], Any], result: Callable[[Any], Any]) -> tuple[str, Any]:
    try:
        return "value", result(fn())
    except CLEAR_ERRORS as err:
        return "error", type(err)


def check(recipe: Any, way: Callable[[Any], Any]) -> None:
    expected = outcome(lambda: build(recipe), model)
    # A second build for tvmffi (the model's hooks changed the first).
    value = build(recipe)
    got = outcome(lambda: way(value), observed)
    if expected[0] == "error":
        assert got == expected, (recipe, got, expected)
    else:
        assert got[0] == "value" and same(got[1], expected[1]), (recipe, got, expected)


@SETTINGS
@given(roots)
def test_conversion_matches_model(recipe: Any) -> None:
    check(recipe, tvmffi.convert)  # Python -> FFI -> Python
    check(recipe, ECHO)  # as a call argument, through a Python callback, and back


# --------------------------------------------------------------------------
# Tensors lent to a Python callback: odd layouts and flags, a write inside.
# --------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, database=None)
@given(st.sampled_from(DTYPES), st.sampled_from(LAYOUTS), st.integers(1, 5), st.data())
def test_callback_lent_tensor(dtype: str, layout: str, n: int, data: Any) -> None:
    arr = make_array(dtype, layout, n)
    before = arr.copy()
    flat = arr.reshape(-1, order="A") if arr.size else arr
    index = data.draw(st.integers(0, max(arr.size - 1, 0)))
    seen: list[Any] = []

    def callback(t: tvmffi.Tensor) -> None:
        view = np.from_dlpack(t)
        seen.append((view.copy(), t))  # keeps the tensor past the call
        if arr.size:
            # Write element `index` (in the array's memory order) through the tensor's strides.
            coord = np.unravel_index(index, arr.shape, order="F" if layout == "fortran" else "C")
            offset = sum(int(c) * int(s) for c, s in zip(coord, t.strides)) * arr.itemsize
            ctypes.memset(t.data_ptr() + offset, 0x11, 1)

    fn = tvmffi.Function(callback)
    if not arr.flags.writeable and arr.size:
        with pytest.raises(ValueError, match="argument #0 is read-only, but the function wrote"):
            fn(arr)
        assert np.array_equal(arr, before)  # the original is untouched
    else:
        fn(arr)
        expected = before.copy()
        if arr.size:
            coord = np.unravel_index(index, arr.shape, order="F" if layout == "fortran" else "C")
            element = bytearray(expected[coord].tobytes())
            element[0] = 0x11  # the first byte in memory (little-endian hosts)
            expected[coord] = np.frombuffer(bytes(element), dtype=arr.dtype)[0]
        assert np.array_equal(arr, expected)
    view, kept = seen[0]
    assert np.array_equal(view, before)  # the callback saw the values as lent
    assert kept.shape == arr.shape
    del flat
