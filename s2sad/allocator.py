"""The C allocator's policy while generated code runs: freed memory is kept for the next call.

Generated code makes its temporaries with NumPy, which takes their memory from the C
library's ``malloc``.  Under glibc's defaults, a freed block at the top of the heap that
is larger than the trim threshold goes back to the kernel at once, and a block larger
than the mmap threshold gets pages of its own, unmapped when freed.  A gradient, a
Taylor pass or a training step makes and frees the same large temporaries at every call,
so each call asks the kernel for fresh pages and takes a page fault on every 4 KiB of
them.  On the plate's Taylor residual that is 10,000 faults a call and half its time.

So the first time generated code is built, s2sad asks glibc (``mallopt``) to keep
freed memory: blocks up to :data:`MMAP_THRESHOLD` (256 MiB; 32 MiB where glibc refuses
more) come from the heap, and up to :data:`TRIM_THRESHOLD` (1 GiB) of freed heap stays
mapped.  (The plate's training step on 4,000 points peaks at 480 MB: with a 256 MiB
trim threshold it still took 81,000 faults a call.)  This is what the caching
allocators of deep-learning frameworks do, with glibc's own heap as the cache: it is
safe across threads and re-entrant calls, and no array is shared between two calls.
A call's peak memory is unchanged; what stays mapped between calls is what the largest
call needed, at most 1 GiB beyond what is in use.

It is not done where the user chose:

* ``S2SAD_KEEP_FREED_MEMORY=0`` in the environment, or
  ``s2sad.keep_freed_memory(False)`` before the first call;
* any of glibc's own malloc settings in the environment (``MALLOC_MMAP_THRESHOLD_``,
  ``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_TOP_PAD_``, ``glibc.malloc`` tunables).

Elsewhere than glibc (macOS, Windows, musl) nothing is changed.
:func:`memory_policy` says which of these holds.
"""

import ctypes
import os
import threading

MMAP_THRESHOLD = 256 * 2 ** 20
MMAP_THRESHOLD_OLD_GLIBC = 32 * 2 ** 20     # the most some glibc versions accept (64-bit)
TRIM_THRESHOLD = 2 ** 30
GLIBC_DEFAULT = 128 * 2 ** 10       # glibc's initial mmap and trim thresholds
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3       # mallopt's parameter numbers

_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")

_lock = threading.Lock()
_state = {"done": False, "applied": False,
          "policy": "not decided yet: no generated code has run"}


def _glibc():
    """The process's C library if it is glibc (it has mallopt), else None."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version.restype = ctypes.c_char_p
        libc.gnu_get_libc_version()
        libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        libc.mallopt.restype = ctypes.c_int
        return libc
    except (OSError, AttributeError, TypeError):
        return None


def _user_choice():
    """Why s2sad leaves the allocator alone, from the environment, or None."""
    if os.environ.get("S2SAD_KEEP_FREED_MEMORY", "1").strip().lower() in ("0", "false",
                                                                          "no", "off"):
        return "left as it is: S2SAD_KEEP_FREED_MEMORY=0"
    for var in _USER_SETTINGS:
        if var in os.environ:
            return f"left as it is: {var} is set in the environment"
    if "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", ""):
        return "left as it is: GLIBC_TUNABLES sets glibc.malloc"
    return None


def _set(libc, mmap_threshold, trim_threshold):
    """The mmap threshold set (glibc may refuse a large one), or 0 if none was."""
    for value in (mmap_threshold, min(mmap_threshold, MMAP_THRESHOLD_OLD_GLIBC)):
        if libc.mallopt(_M_MMAP_THRESHOLD, value):
            return value if libc.mallopt(_M_TRIM_THRESHOLD, trim_threshold) else 0
    return 0


def _apply(keep):
    """Set the policy (keep: bool) and say what holds now."""
    libc = _glibc()
    if libc is None:
        return "left as it is: the C library is not glibc"
    if keep:
        mmap_threshold = _set(libc, MMAP_THRESHOLD, TRIM_THRESHOLD)
        if not mmap_threshold:
            return "left as it is: glibc refused the thresholds"
        return (f"freed memory kept (glibc: mmap threshold {mmap_threshold >> 20} MiB, "
                f"trim threshold {TRIM_THRESHOLD >> 20} MiB)")
    _set(libc, GLIBC_DEFAULT, GLIBC_DEFAULT)
    libc.malloc_trim(0)
    return "freed memory returned (glibc: thresholds back to 128 KiB)"


def ensure():
    """Called before generated code first runs on NumPy: keep freed memory, once per
    process, unless the user chose otherwise.  Cheap after the first time."""
    if _state["done"]:
        return
    with _lock:
        if not _state["done"]:
            reason = _user_choice()
            _state["policy"] = reason or _apply(True)
            _state["applied"] = reason is None and _state["policy"].startswith("freed")
            _state["done"] = True


def keep_freed_memory(keep=True):
    """Whether the C allocator keeps memory that generated code freed, for its next call.

    s2sad turns this on by itself before generated code first runs (see the module's
    notes); ``keep_freed_memory(False)`` before then leaves the allocator as it is, and
    afterwards sets glibc's thresholds back to their initial 128 KiB and returns the
    freed memory.  ``keep_freed_memory(True)`` applies it now, even where the
    environment said otherwise.  Returns :func:`memory_policy`'s answer."""
    with _lock:
        if keep or _state["applied"]:
            _state["policy"] = _apply(bool(keep))
        else:
            _state["policy"] = "left as it is: keep_freed_memory(False)"
        _state["applied"] = _state["policy"].startswith("freed memory kept")
        _state["done"] = True
    return _state["policy"]


def memory_policy():
    """What s2sad did to the C allocator, in words."""
    return _state["policy"]
