"""rfverify.seeding pinned (mutation testing): stable keys, the trial word, validation."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from rfverify.errors import UsageError
from rfverify.seeding import DEFAULT_SEED, SeedSource, stable_words


def test_default_seed():
    assert DEFAULT_SEED == 20261122
    assert SeedSource().root == DEFAULT_SEED


def test_stable_words_is_blake2b_of_the_reprs_joined_by_unit_separator():
    digest = hashlib.blake2b("'a'\x1f3\x1f(1, 2)".encode(), digest_size=16).digest()
    want = tuple(int.from_bytes(digest[i:i + 4], "little") for i in (0, 4, 8, 12))
    assert stable_words("a", 3, (1, 2)) == want
    assert len(want) == 4 and all(0 <= w < 2 ** 32 for w in want)
    assert stable_words("a", "b") != stable_words("ab") != stable_words("a\x1fb")
    assert stable_words("1") != stable_words(1)


def test_sequence_key_trial_and_root():
    s = SeedSource(7)
    seq = s.sequence("check", "x", trial=3)
    assert seq.entropy == 7 and seq.spawn_key == stable_words("check", "x") + (3,)
    assert s.sequence("check", "x").spawn_key == stable_words("check", "x")
    assert s.sequence("check", "x", trial=0).spawn_key == stable_words("check", "x") + (0,)
    a, b = s.rng("k", trial=1).random(4), s.rng("k", trial=1).random(4)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, s.rng("k", trial=2).random(4))
    assert not np.array_equal(a, SeedSource(8).rng("k", trial=1).random(4))
    assert np.array_equal(s.rng("k").random(3), np.random.default_rng(s.sequence("k")).random(3))


def test_random_state_is_a_32_bit_word_of_the_sequence():
    s = SeedSource(11)
    rs = s.random_state("k", trial=5)
    assert rs == int(s.sequence("k", trial=5).generate_state(1, dtype=np.uint32)[0])
    assert isinstance(rs, int) and 0 <= rs < 2 ** 32
    assert rs != s.random_state("k", trial=6)
    assert s.random_state("k") == int(s.sequence("k").generate_state(1, dtype=np.uint32)[0])


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_bad_root_is_a_usage_error(bad):
    with pytest.raises(UsageError, match=r"^seed must be a non-negative integer, got "):
        SeedSource(bad)


def test_seed_source_is_frozen():
    import dataclasses

    s = SeedSource(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.root = 4  # type: ignore[misc]
    assert hash(s) == hash(SeedSource(3))


def test_zero_and_numpy_integer_roots_are_accepted():
    assert SeedSource(0).root == 0
    assert SeedSource(np.int64(5)).sequence("k").entropy == 5
