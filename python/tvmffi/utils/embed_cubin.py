"""Put a CUDA binary (cubin, fatbin or PTX) into an object file, for a kernel library to carry.

``embed_cubin(cubin_path, input_obj_path, output_obj_path, name)`` writes
``output_obj_path``: the code of ``input_obj_path`` plus the binary's bytes in
a read-only section, between the symbols ``__tvm_ffi__cubin_<name>`` (first
byte) and ``__tvm_ffi__cubin_<name>_end`` (one past the last; a zero byte
follows, so PTX text reads as a C string).  The C++ code declares them as
``extern "C" const unsigned char __tvm_ffi__cubin_<name>[];`` (upstream's
``TVM_FFI_EMBED_CUBIN(name)`` does) and links against them; in the output the
two symbols are local, so several objects may embed a binary under the same
name.

The steps (GNU binutils on Linux): ``as`` assembles a small file that
``.incbin``-s the binary, ``ld -r`` joins it to the input object, and
``objcopy --localize-symbol`` makes the two symbols local.

Command line: ``python -m tvmffi.utils.embed_cubin --input-obj a.o --cubin k.cubin
--name kernels --output-obj b.o [-v]``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

__all__ = ["embed_cubin", "main"]

SYMBOL_PREFIX = "__tvm_ffi__cubin_"

# The binary's bytes, 64-byte aligned (ELF cubins and fatbins are read in
# place), then a zero byte after the end symbol.  %progbits: "@" starts a
# comment on ARM; GNU as takes "%" on every target.
_ASM_TEMPLATE = """\
\t.section .rodata.{prefix}{name},"a",%progbits
\t.globl {prefix}{name}
\t.globl {prefix}{name}_end
\t.p2align 6
{prefix}{name}:
\t.incbin "payload.bin"
{prefix}{name}_end:
\t.byte 0
\t.section .note.GNU-stack,"",%progbits
"""


def _run(cmd: list[str], cwd: Path | None, verbose: bool, what: str) -> None:
    """Run one tool, printing it when ``verbose``; RuntimeError with its output on failure."""
    if verbose:
        print(f"[embed_cubin] {what}: {' '.join(cmd)}", flush=True)
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as err:
        raise RuntimeError(f"embed_cubin: {cmd[0]} not found (GNU binutils are needed)") from err
    output = (proc.stdout + proc.stderr).strip()
    if verbose and output:
        print(output, flush=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"embed_cubin: {what} failed (exit status {proc.returncode})\n"
            f"command: {' '.join(cmd)}\n{output}"
        )


def embed_cubin(
    cubin_path: str | Path,
    input_obj_path: str | Path,
    output_obj_path: str | Path,
    name: str,
    verbose: bool = False,
) -> None:
    """Write ``output_obj_path``: ``input_obj_path`` plus the bytes of ``cubin_path``.

    The bytes lie between the local symbols ``__tvm_ffi__cubin_<name>`` and
    ``__tvm_ffi__cubin_<name>_end``, which the input object's code refers to.
    ``output_obj_path`` may be ``input_obj_path``.

    Parameters
    ----------
    cubin_path
        The CUDA binary (cubin, fatbin or PTX); any file works.
    input_obj_path
        A relocatable object file (``.o``) whose code uses the symbols.
    output_obj_path
        Where the joined object file goes; its folder must exist.
    name
        The symbols' suffix, a C identifier (the name given to
        ``TVM_FFI_EMBED_CUBIN``).
    verbose
        Print each command and its output.

    Raises
    ------
    FileNotFoundError
        ``cubin_path`` or ``input_obj_path`` does not exist.
    ValueError
        ``name`` is not a C identifier.
    RuntimeError
        A tool is missing or fails (its command and output are in the message).
    """
    cubin_path, input_obj_path = Path(cubin_path), Path(input_obj_path)
    output_obj_path = Path(output_obj_path)
    if not cubin_path.is_file():
        raise FileNotFoundError(f"embed_cubin: CUDA binary not found: {cubin_path}")
    if not input_obj_path.is_file():
        raise FileNotFoundError(f"embed_cubin: input object file not found: {input_obj_path}")
    if not (name.isidentifier() and name.isascii()):
        raise ValueError(f"embed_cubin: name {name!r} is not a C identifier")
    start, end = SYMBOL_PREFIX + name, SYMBOL_PREFIX + name + "_end"
    if verbose:
        print(
            f"[embed_cubin] {cubin_path} ({cubin_path.stat().st_size} bytes) into "
            f"{input_obj_path} -> {output_obj_path} as {start} .. {end}",
            flush=True,
        )
    with tempfile.TemporaryDirectory(prefix="tvmffi-embed-cubin-") as tmp:
        work = Path(tmp)
        # A copy under a fixed name: the .incbin path then needs no quoting.
        shutil.copyfile(cubin_path, work / "payload.bin")
        (work / "payload.s").write_text(_ASM_TEMPLATE.format(prefix=SYMBOL_PREFIX, name=name))
        _run(["as", "-o", "payload.o", "payload.s"], work, verbose, "assemble the binary")
        # Joined in the temporary folder first: the output may be the input.
        _run(
            ["ld", "-r", "-o", str(work / "joined.o"), str(input_obj_path.resolve()), "payload.o"],
            work,
            verbose,
            "join the objects (ld -r)",
        )
        _run(
            ["objcopy", "--localize-symbol", start, "--localize-symbol", end, "joined.o"],
            work,
            verbose,
            "make the symbols local",
        )
        shutil.copyfile(work / "joined.o", output_obj_path)
    if verbose:
        print(
            f"[embed_cubin] wrote {output_obj_path} ({output_obj_path.stat().st_size} bytes)",
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``python -m tvmffi.utils.embed_cubin --help``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m tvmffi.utils.embed_cubin",
        description="Embed a CUDA binary into an object file between the symbols "
        "__tvm_ffi__cubin_<NAME> and __tvm_ffi__cubin_<NAME>_end.",
    )
    parser.add_argument(
        "--input-obj",
        required=True,
        metavar="PATH",
        help="object file whose code refers to the symbols",
    )
    parser.add_argument(
        "--cubin", required=True, metavar="PATH", help="the CUDA binary (cubin, fatbin or PTX)"
    )
    parser.add_argument("--name", required=True, help="the symbols' suffix (a C identifier)")
    parser.add_argument(
        "--output-obj",
        required=True,
        metavar="PATH",
        help="the object file to write (its folder is created)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print each command")
    args = parser.parse_args(argv)
    output = Path(args.output_obj)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        embed_cubin(args.cubin, args.input_obj, output, args.name, verbose=args.verbose)
    except (OSError, ValueError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
