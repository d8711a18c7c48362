"""``python -m tvmffi.stub``: the ``tvm-ffi-stubgen`` command."""

import sys

from .cli import main

sys.exit(main())
