"""libminitile_torch.so through ctypes: the shipped kernels' launchers.

The library is a plain C ABI (python/csrc/minitile_torch.cpp): sizes, raw
device pointers, a CUDA stream and a device ordinal in, a status out. It
links nothing of PyTorch or Python, so one build loads under any torch and
any Python; it opens the CUDA driver only at the first launch, so importing
it needs no GPU. $MINITILE_TORCH_LIBRARY names another copy of it.
"""
import ctypes
import os
import pathlib
import threading

_ABI_VERSION = 2

_OK, _BAD_ARGUMENT, _CUDA_ERROR, _NOT_BUILT = 0, 1, 2, 3

_lock = threading.Lock()
_lib = None


class KernelError(RuntimeError):
    """A CUDA failure inside a minitile launch (the message names the call)."""


def path():
    """Where the library is looked for."""
    return os.environ.get("MINITILE_TORCH_LIBRARY") or str(
        pathlib.Path(__file__).with_name("libminitile_torch.so"))


def _load():
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        where = path()
        try:
            lib = ctypes.CDLL(where)
        except OSError as e:
            raise ImportError(
                f"minitile.torch: cannot load its kernels' library {where}: {e}; build it "
                "with cmake -DMINITILE_TORCH=ON (docs/torch.md)") from None
        if lib.minitile_torch_abi_version() != _ABI_VERSION:
            raise ImportError(f"minitile.torch: {where} speaks ABI version "
                              f"{lib.minitile_torch_abi_version()}, this package "
                              f"{_ABI_VERSION}: build the two from one checkout")
        i32, i64, ptr = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
        lib.minitile_torch_last_error.restype = ctypes.c_char_p
        lib.minitile_torch_shapes.restype = ctypes.c_char_p
        lib.minitile_torch_indexer_fwd.argtypes = [i32, i32, i64, i64] + [ptr] * 7 + [i32]
        lib.minitile_torch_batched_indexer_fwd.argtypes = [i32, i32, i64, i64, i64] + \
            [ptr] * 7 + [i32]
        lib.minitile_torch_clean_logits.argtypes = [i64, i64, ptr, ptr, ptr, ptr, i32]
        lib.minitile_torch_topk.argtypes = [i64, i64, i64, i64] + [ptr] * 5 + [i32, ptr, i32]
        lib.minitile_torch_bwd_shapes.restype = ctypes.c_char_p
        lib.minitile_torch_indexer_bwd.argtypes = [i32, i32, i64, i64, i64, i64] + \
            [ptr] * 9 + [i32]
        for f in ("indexer_fwd", "batched_indexer_fwd", "clean_logits", "topk", "indexer_bwd"):
            getattr(lib, "minitile_torch_" + f).restype = ctypes.c_int
        _lib = lib
        return lib


def lib():
    """The loaded library (loaded on first use)."""
    return _lib if _lib is not None else _load()


def raise_for(status, op):
    """Turns a failed call's status into the Python exception it stands for."""
    message = lib().minitile_torch_last_error().decode(errors="replace")
    if status == _CUDA_ERROR:
        raise KernelError(f"minitile.{op}: {message}")
    raise ValueError(f"minitile.{op}: {message}")


def built_shapes():
    """The (heads, dim) pairs the indexer kernels of this build take."""
    text = lib().minitile_torch_shapes().decode()
    return [tuple(int(x) for x in pair.split("x")) for pair in text.split(",") if pair]


_bwd_shapes = None


def built_bwd_shapes():
    """The (heads, dim) pairs the backward kernels of this build take."""
    global _bwd_shapes
    if _bwd_shapes is None:
        text = lib().minitile_torch_bwd_shapes().decode()
        _bwd_shapes = [tuple(int(x) for x in pair.split("x")) for pair in text.split(",") if pair]
    return _bwd_shapes
