import tempfile

import tvmffi
from tvmffi import Object
from tvmffi.dataclasses import gen_abi_cpp, py_class


@py_class("example.Point")
class Point(Object):
    x: int
    label: str


folder = tempfile.mkdtemp()
with open(f"{folder}/point_abi.h", "w") as f:
    f.write(gen_abi_cpp("example.Point"))  # or "example.*", or a list of keys

# C++ reads the fields of an object made in Python, at their registered offsets.
source = r"""
#include "point_abi.h"  // struct ::example::PointObj : Object { int64_t x; String label; }
int64_t get_x(const ::example::PointObj* p) { return p->x; }
"""
mod = tvmffi.cpp.load_inline(
    name="point_abi",
    cpp_sources=source,
    functions=["get_x"],
    extra_include_paths=[folder],
    build_directory=f"{folder}/build",
)
print(mod.get_x(Point(x=42, label="a")))  # 42
