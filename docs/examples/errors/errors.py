import sys

import numpy as np

import tvmffi

mod = tvmffi.load_module(sys.argv[1])  # mykernels (docs/examples/kernel)
x = np.zeros(4, dtype=np.float32)

# A kernel's error arrives as the Python exception of its kind.
try:
    mod.scale(x, x[:2], 2.0)
except ValueError as err:
    print("ValueError:", err)  # ...: shapes differ: [4] and [2]
    print(err.backtrace.splitlines()[0])  # the C++ line that raised it

# Bad arguments are TypeErrors naming the function and the argument.
try:
    mod.scale(x, x, "two")
except TypeError as err:
    print("TypeError:", err)  # Mismatched type on argument #2 when calling: `scale(...)`...


# A Python exception raised under an FFI call keeps its kind on the way back.
@tvmffi.register_global_func("example.check_positive")
def check_positive(v: int) -> int:
    if v <= 0:
        raise ValueError(f"{v} is not positive")
    return v


try:
    tvmffi.get_global_func("example.check_positive")(-1)
except ValueError as err:
    print("ValueError:", err)  # -1 is not positive


# A kind with no Python built-in becomes a tvmffi.Error subclass; register_error picks the class.
@tvmffi.register_error("ShapeMismatchError")
class ShapeMismatchError(tvmffi.Error):
    pass


@tvmffi.register_global_func("example.raise_custom")
def raise_custom() -> None:
    raise ShapeMismatchError("custom kinds cross too")


try:
    tvmffi.get_global_func("example.raise_custom")()
except ShapeMismatchError as err:
    print(type(err).__name__, err.kind, err)  # ShapeMismatchError ShapeMismatchError custom ...
