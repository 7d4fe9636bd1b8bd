"""The pass plan of the FWHT kernels and the constants it depends on (private; never imports numba).

Shared by :mod:`._fwht_numba` (threads, the public helpers) and :mod:`._fwht_kernels` (the compiled
kernels, which read these constants as compile-time globals).
"""

from __future__ import annotations

#: Bytes of one SIMD vector used by the kernels (AVX-512; LLVM splits it on narrower targets).
VECTOR_BYTES = 64
#: Largest number of vectors combined in one pass (16 registers of 32 on AVX-512).
MAX_VECTORS = 16
#: Rows are taken in groups of about this many elements: the first (block) pass runs over the
#: group as one flat loop (short rows pay no per-row overhead), then the later passes row by row.
GROUP_ELEMS = 512


def pass_plan(L: int, lanes: int) -> tuple[int, list[int]]:
    """``(block_bits, pass_bits)`` for ``d = 2^L``: stages fused in the first block and in each later pass.

    The Python twin of the kernels' plan (for documentation and tests).  The first block
    covers ``log2 lanes`` in-register stages plus up to ``log2 MAX_VECTORS`` cross-register
    stages (one fewer when that would leave a lone radix-2 pass); the remaining stages go into
    passes of ``log2 MAX_VECTORS`` stages, the remainder last (5 stages as 3 + 2, never 4 + 1).  ``block_bits = 0``: the row is
    shorter than two vectors (scalar code).
    """
    lb = lanes.bit_length() - 1
    vb = MAX_VECTORS.bit_length() - 1
    if L < lb + 1:
        return 0, []
    block = min(L, lb + vb)
    if L - block == 1:
        block -= 1
    rest = L - block
    passes = []
    while rest:
        passes.append(3 if rest == vb + 1 else min(vb, rest))
        rest -= passes[-1]
    return block, passes
