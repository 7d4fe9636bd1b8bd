"""Compiled kernels of :mod:`rfverify.implementations.structured` (numba backend; private).

Importing this module imports numba and llvmlite: only :func:`._fwht_numba.kernels` imports it, on
first use.  Every kernel and intrinsic is defined at module level (not inside a function), so numba's
disk cache (``cache=True``) finds the compiled code again in the next process.  (Defined inside a
function, the kernels were closures over intrinsics made anew in each process: their cache index key,
which includes the closure's contents, never matched, so every process compiled again and appended
another entry to the index.)

FWHT rows (``fwht_rows(X)`` in place, ``fwht_rows_oop(S, D)`` from ``S`` into ``D``)
---------------------------------------------------------------------------------
A row of ``d = 2^L`` entries is transformed by *passes*, each a handful of radix-2
stages applied while the data sit in SIMD registers:

* the first pass is a fused block of ``B = W · V`` entries (``W`` lanes of one 64-byte
  vector: 16 in float32, 8 in float64, so both dtypes use the full AVX-512 width; ``V``
  vectors, up to 16): ``log2 W`` stages inside each register (``shufflevector`` + select,
  written with llvmlite because LLVM does not vectorise stride-1/2/4/8 butterflies by
  itself) then ``log2 V`` stages across the registers;
* each later pass takes ``V`` vectors ``h`` entries apart (``h`` the current stage) and
  applies ``log2 V`` stages across them (radix 2 ... 16), so a row of any ``d <= 2^14``
  is read and written 2-4 times while it stays in L1/L2.

Every output is produced by the same additions, in the same order, as the textbook
radix-2 stage loop (stage ``h`` combines ``x[i]`` and ``x[i + h]`` into ``a + b`` and
``a - b`` for ``h = 1, 2, 4, ...``): a pass only regroups stages applied to disjoint
data, so the results are bit-identical to the scalar butterfly (tested against it).
The out-of-place kernel loads from ``S`` and stores into ``D`` in its first pass, so
``out=`` and the allocating path touch each page once (first-touch page faults happen
inside the kernel, on the thread that transforms the row).

Rows shorter than two vectors use the scalar radix-8/4/2 code.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from rfverify.implementations._fwht_plan import GROUP_ELEMS, VECTOR_BYTES

__all__ = ["fwht_range", "fwht_range_scaled", "fwht_rows", "butterfly_range", "butterfly_rows", "fwht_prange"]

njit = numba.njit(cache=True, nogil=True)
i32 = ir.IntType(32)
i64 = ir.IntType(64)


def _float_rows(x: Any) -> bool:
    return isinstance(x, types.Array) and x.layout == "C" and isinstance(x.dtype, types.Float)


def _vec_ptrs(context, builder, arr_ty, arr_val, start, stride, nv):
    arr = context.make_array(arr_ty)(context, builder, value=arr_val)
    lanes = VECTOR_BYTES // context.get_abi_sizeof(context.get_value_type(arr_ty.dtype))
    vty = ir.VectorType(context.get_value_type(arr_ty.dtype), lanes)
    base = builder.gep(arr.data, [start])
    return [builder.bitcast(builder.gep(base, [builder.mul(stride, ir.Constant(i64, k))]), vty.as_pointer())
            for k in range(nv)], lanes


def _vector_fma(builder, vty, lanes):
    from numba.core import cgutils

    name = f"llvm.fma.v{lanes}{'f32' if isinstance(vty.element, ir.FloatType) else 'f64'}"
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(vty, [vty] * 3), name)


def _cross(builder, vs):  # radix-2 stages 1, 2, 4, ... (in vector units) across the list vs
    h = 1
    while h < len(vs):
        nv = list(vs)
        for a in range(len(vs)):
            if not a & h:
                nv[a], nv[a + h] = builder.fadd(vs[a], vs[a + h]), builder.fsub(vs[a], vs[a + h])
        vs = nv
        h *= 2
    return vs


def _scaled(builder, vs, scale, scaled):  # the final pass of a normalised transform: fl(v · scale)
    if not scaled:
        return vs
    sv = builder.insert_element(ir.Constant(vs[0].type, ir.Undefined), scale, ir.Constant(i32, 0))
    sv = builder.shuffle_vector(sv, sv, ir.Constant(ir.VectorType(i32, vs[0].type.count), [0] * vs[0].type.count))
    return [builder.fmul(v, sv) for v in vs]


def _make_block(nv: int, scaled: bool) -> Any:
    @intrinsic
    def block(typingctx, src, dst, start, scale):  # all stages < lanes * nv on [start, start + lanes*nv)
        if not (_float_rows(src) and _float_rows(dst) and src.ndim == 1 and dst.ndim == 1
                and src.dtype == dst.dtype and scale == src.dtype):
            return None

        def codegen(context, builder, signature, args):
            s_ty, d_ty = signature.args[0], signature.args[1]
            lanes = VECTOR_BYTES // context.get_abi_sizeof(context.get_value_type(s_ty.dtype))
            step = ir.Constant(i64, lanes)
            sp, _ = _vec_ptrs(context, builder, s_ty, args[0], args[2], step, nv)
            dp, _ = _vec_ptrs(context, builder, d_ty, args[1], args[2], step, nv)
            vs = []
            for ptr in sp:
                v = builder.load(ptr, align=1)
                h = 1
                while h < lanes:  # lane i <- v[i] + v[i^h] (bit h of i clear) or v[i^h] - v[i]
                    perm = ir.Constant(ir.VectorType(i32, lanes), [i ^ h for i in range(lanes)])
                    sign = ir.Constant(v.type, [-1.0 if i & h else 1.0 for i in range(lanes)])
                    s = builder.shuffle_vector(v, v, perm)
                    # fma(v, ±1, s) rounds the exact v·(±1) + s once: the same value as s + v or s - v
                    fma = _vector_fma(builder, v.type, lanes)
                    v = builder.call(fma, [v, sign, s])
                    h *= 2
                vs.append(v)
            for ptr, v in zip(dp, _scaled(builder, _cross(builder, vs), args[3], scaled)):
                builder.store(v, ptr, align=1)
            return context.get_dummy_value()
        return types.void(src, dst, start, scale), codegen
    return block


def _make_pass(nv: int, scaled: bool) -> Any:
    @intrinsic
    def radix(typingctx, x, start, h, scale):  # stages h .. h*nv/2 on x[start + k h], one vector each
        if not (_float_rows(x) and x.ndim == 1 and scale == x.dtype):
            return None

        def codegen(context, builder, signature, args):
            ptrs, _ = _vec_ptrs(context, builder, signature.args[0], args[0], args[1], args[2], nv)
            vs = [builder.load(p, align=1) for p in ptrs]
            for ptr, v in zip(ptrs, _scaled(builder, _cross(builder, vs), args[3], scaled)):
                builder.store(v, ptr, align=1)
            return context.get_dummy_value()
        return types.void(x, start, h, scale), codegen
    return radix


blk2, blk4, blk8, blk16 = (_make_block(v, False) for v in (2, 4, 8, 16))
rad2, rad4, rad8, rad16 = (_make_pass(v, False) for v in (2, 4, 8, 16))
sblk2, sblk4, sblk8, sblk16 = (_make_block(v, True) for v in (2, 4, 8, 16))
srad2, srad4, srad8, srad16 = (_make_pass(v, True) for v in (2, 4, 8, 16))


@numba.njit(cache=True, inline="always")
def _first_block(s, x, d, bits, lanes, scale, last):  # returns the stage reached (block size)
    nv = (1 << bits) // lanes
    size = nv * lanes
    if last:  # the block is the whole transform: scale on the way out
        if nv == 16:
            for q in range(0, d, size):
                sblk16(s, x, q, scale)
        elif nv == 8:
            for q in range(0, d, size):
                sblk8(s, x, q, scale)
        elif nv == 4:
            for q in range(0, d, size):
                sblk4(s, x, q, scale)
        else:
            for q in range(0, d, size):
                sblk2(s, x, q, scale)
    elif nv == 16:
        for q in range(0, d, size):
            blk16(s, x, q, scale)
    elif nv == 8:
        for q in range(0, d, size):
            blk8(s, x, q, scale)
    elif nv == 4:
        for q in range(0, d, size):
            blk4(s, x, q, scale)
    else:
        for q in range(0, d, size):
            blk2(s, x, q, scale)
    return size


@numba.njit(cache=True, inline="always")
def _vector_pass(x, d, h, bits, lanes, scale, last):
    nv = 1 << bits
    for i in range(0, d, nv * h):
        if last:
            if nv == 16:
                for j in range(i, i + h, lanes):
                    srad16(x, j, h, scale)
            elif nv == 8:
                for j in range(i, i + h, lanes):
                    srad8(x, j, h, scale)
            elif nv == 4:
                for j in range(i, i + h, lanes):
                    srad4(x, j, h, scale)
            else:
                for j in range(i, i + h, lanes):
                    srad2(x, j, h, scale)
        elif nv == 16:
            for j in range(i, i + h, lanes):
                rad16(x, j, h, scale)
        elif nv == 8:
            for j in range(i, i + h, lanes):
                rad8(x, j, h, scale)
        elif nv == 4:
            for j in range(i, i + h, lanes):
                rad4(x, j, h, scale)
        else:
            for j in range(i, i + h, lanes):
                rad2(x, j, h, scale)
    return h * nv


@numba.njit(cache=True, inline="always")
def _scalar_row(x, d):  # textbook stages for rows shorter than two vectors
    h = 1
    while h * 8 <= d:
        for i in range(0, d, 8 * h):
            for j in range(i, i + h):
                a0 = x[j]; a1 = x[j + h]; a2 = x[j + 2 * h]; a3 = x[j + 3 * h]
                a4 = x[j + 4 * h]; a5 = x[j + 5 * h]; a6 = x[j + 6 * h]; a7 = x[j + 7 * h]
                b0 = a0 + a1; b1 = a0 - a1; b2 = a2 + a3; b3 = a2 - a3
                b4 = a4 + a5; b5 = a4 - a5; b6 = a6 + a7; b7 = a6 - a7
                c0 = b0 + b2; c1 = b1 + b3; c2 = b0 - b2; c3 = b1 - b3
                c4 = b4 + b6; c5 = b5 + b7; c6 = b4 - b6; c7 = b5 - b7
                x[j] = c0 + c4; x[j + h] = c1 + c5; x[j + 2 * h] = c2 + c6; x[j + 3 * h] = c3 + c7
                x[j + 4 * h] = c0 - c4; x[j + 5 * h] = c1 - c5; x[j + 6 * h] = c2 - c6; x[j + 7 * h] = c3 - c7
        h *= 8
    while h < d:
        for i in range(0, d, 2 * h):
            for j in range(i, i + h):
                a0 = x[j]; a1 = x[j + h]
                x[j] = a0 + a1; x[j + h] = a0 - a1
        h *= 2


@numba.njit(cache=True, inline="always")
def _plan(d, lanes):  # numba twin of pass_plan: (block bits, passes as a bit count array)
    L = 0
    while (1 << L) < d:
        L += 1
    lb = 0
    while (1 << lb) < lanes:
        lb += 1
    if L < lb + 1:
        return 0, np.zeros(0, np.int64)
    block = min(L, lb + 4)
    if L - block == 1:
        block -= 1
    rest = L - block
    k = (rest + 3) // 4
    out = np.zeros(k, np.int64)
    left = rest
    for i in range(k):  # 16-vector passes first (measured: 5-10% faster than balanced at d = 2^13),
        out[i] = min(4, left)  # but never a lone radix-2 pass last: 5 stages -> 3 + 2
        if left == 5:
            out[i] = 3
        left -= out[i]
    return block, out


@njit
def fwht_range_scaled(S, D, lo, hi, scale, scaled):
    """Rows lo..hi-1: ``D <- S @ H`` (times ``scale`` in the final pass when ``scaled``).

    ``S``, ``D`` C-contiguous ``(n, d)`` of one dtype, ``S`` may be ``D``; ``scale`` of that dtype.
    The product ``fl(fl(Hx)_i · scale)`` is the one a separate ``*= scale`` pass computes.
    """
    d = S.shape[1]
    if hi <= lo or d == 0:
        return
    lanes = VECTOR_BYTES // S.itemsize
    block, passes = _plan(d, lanes)
    if block == 0:
        for r in range(lo, hi):
            x = D[r]
            s = S[r]
            for j in range(d):
                x[j] = s[j]
            _scalar_row(x, d)
            if scaled:
                for j in range(d):
                    x[j] = x[j] * scale
        return
    n = S.shape[0]
    fs = S.reshape(n * d)
    fd = D.reshape(n * d)
    np_ = passes.shape[0]
    group = max(1, GROUP_ELEMS // d)  # rows whose first pass runs as one flat loop
    for r0 in range(lo, hi, group):
        r1 = min(hi, r0 + group)
        _first_block(fs[r0 * d:r1 * d], fd[r0 * d:r1 * d], (r1 - r0) * d, block, lanes, scale,
                     scaled and np_ == 0)
        for r in range(r0, r1):
            x = D[r]
            h = 1 << block
            for p in range(np_):
                h = _vector_pass(x, d, h, passes[p], lanes, scale, scaled and p == np_ - 1)


@njit
def fwht_range(S, D, lo, hi):  # unscaled
    fwht_range_scaled(S, D, lo, hi, S.dtype.type(1.0), False)


@njit
def fwht_rows(X):  # in place, all rows
    fwht_range(X, X, 0, X.shape[0])


@njit
def butterfly_range(X, lo, hi, cos, sin):  # in place on rows lo..hi-1; angles flat, top level first
    d = X.shape[1]
    for r in range(lo, hi):
        x = X[r]
        h = d // 2
        off = 0
        while h >= 1:
            nb = d // (2 * h)
            for b in range(nb):
                c = cos[off + b]
                s = sin[off + b]
                i = 2 * h * b
                s0 = x[i:i + h]; s1 = x[i + h:i + 2 * h]
                for j in range(h):
                    a0 = s0[j]; a1 = s1[j]
                    s0[j] = c * a0 - s * a1
                    s1[j] = s * a0 + c * a1
            off += nb
            h //= 2


@njit
def butterfly_rows(X, cos, sin):
    butterfly_range(X, 0, X.shape[0], cos, sin)


@numba.njit(parallel=True, nogil=True, cache=True)
def fwht_prange(S, D, chunks):  # the benchmark's prange variant (see _fwht_numba.prange_kernel)
    n = S.shape[0]
    for c in numba.prange(chunks):
        fwht_range(S, D, c * n // chunks, (c + 1) * n // chunks)
