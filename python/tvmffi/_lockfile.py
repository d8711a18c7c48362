"""An advisory lock on a file, shared by cooperating processes (POSIX flock, Windows msvcrt).

``FileLock(path)``: ``acquire()`` tries once and says whether it got the lock;
``blocking_acquire(timeout)`` waits; ``with FileLock(path):`` waits without a
limit and releases on exit. The lock belongs to the open file: a second
``acquire()`` on an instance that holds it returns False, as does one from
another instance or process while the lock is held. The file is created if
needed and left in place.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

__all__ = ["FileLock"]

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except (BlockingIOError, PermissionError):
            return False

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class FileLock:
    """An advisory, inter-process lock on the file ``lock_file_path``."""

    def __init__(self, lock_file_path: str | os.PathLike[str]) -> None:
        self.lock_file_path = os.fspath(lock_file_path)
        self._file_descriptor: int | None = None

    def acquire(self) -> bool:
        """Take the lock if it is free: True when taken, False when someone holds it
        (this instance included)."""
        if self._file_descriptor is not None:
            return False
        fd = os.open(self.lock_file_path, os.O_RDWR | os.O_CREAT, 0o644)
        if _try_lock(fd):
            self._file_descriptor = fd
            return True
        os.close(fd)
        return False

    def blocking_acquire(self, timeout: float | None = None, poll_interval: float = 0.1) -> bool:
        """Wait for the lock, polling every ``poll_interval`` seconds: True when taken;
        TimeoutError after ``timeout`` seconds (None: no limit)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.acquire():
            if self._file_descriptor is not None:
                raise RuntimeError(
                    f"FileLock({self.lock_file_path!r}) is already held by this instance"
                )
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(
                    f"could not take the lock {self.lock_file_path!r} within {timeout} s"
                )
            time.sleep(poll_interval)
        return True

    def release(self) -> None:
        """Give the lock back (nothing when it is not held)."""
        fd = self._file_descriptor
        if fd is None:
            return
        self._file_descriptor = None
        try:
            _unlock(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> FileLock:
        self.blocking_acquire()
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        self.release()
        return False

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:
            pass
