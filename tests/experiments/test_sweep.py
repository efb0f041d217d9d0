"""Sweep description: validation, cells, deterministic seeds."""

from __future__ import annotations

import pytest

from lamcap.experiments._sweep import Cell, Sweep, instance_seed, p_from_load


def test_seeds_depend_only_on_instance_identity() -> None:
    a = Sweep(dims=(8, 12), models=("decoupled", "original"), seeds_per_point=3)
    b = Sweep(dims=(12,), models=("decoupled",), methods=("hebbian",), seeds_per_point=3)
    cell_a = Cell(12, 1.0, "decoupled", "auto")
    cell_b = Cell(12, 1.0, "decoupled", "hebbian")
    # same instance for another method (paired comparison), different per replicate
    assert [t.seed for t in a.tasks(cell_a, [30])] == [t.seed for t in b.tasks(cell_b, [30])]
    seeds = {t.seed for t in a.tasks(cell_a, [30, 31])}
    assert len(seeds) == 6
    assert instance_seed(1, 12, 1.0, "decoupled", 30, 0) != instance_seed(
        0, 12, 1.0, "decoupled", 30, 0
    )
    assert instance_seed(0, 12, 1.0, "original", 30, 0) != instance_seed(
        0, 12, 1.0, "decoupled", 30, 0
    )


def test_seed_is_platform_independent_sha256() -> None:
    import hashlib

    digest = hashlib.sha256(b"0|8|1|decoupled|20|0").digest()
    assert instance_seed(0, 8, 1.0, "decoupled", 20, 0) == int.from_bytes(digest[:8], "big") >> 1


def test_cells_cover_the_product_in_order() -> None:
    sweep = Sweep(
        dims=(8, 12),
        kappas=(0.5, 1.0),
        models=("decoupled", "original"),
        methods=("auto", "hebbian"),
    )
    cells = list(sweep.cells())
    assert len(cells) == 16
    assert cells[0] == Cell(8, 0.5, "decoupled", "auto")
    assert cells[0].rank == 4
    assert Cell(12, 1.0, "original", "auto").rank == 12


def test_loads_convert_to_p() -> None:
    sweep = Sweep(dims=(12,), loads=(1.0,))
    (p,) = sweep.fixed_grid(12)
    # 39 log 39 = 142.9 and 40 log 40 = 147.6 bracket 144; 39 is closer
    assert p == 39
    assert p_from_load(1e-9, 4) == 2


@pytest.mark.parametrize(
    ("mapping", "match"),
    [
        ({"dims": [8], "colour": 1}, "unknown sweep parameter"),
        ({"dims": []}, "dims must not be empty"),
        ({"dims": [1]}, "d must be an integer in"),
        ({"dims": [8], "kappas": [0.0]}, "kappa must be"),
        ({"dims": [8], "kappas": [1.5]}, "kappa must be"),
        ({"dims": [8], "models": ["other"]}, "model must be one of"),
        ({"dims": [8], "methods": ["magic"]}, "method must be one of"),
        ({"dims": [8], "p_grid": []}, "p_grid must not be empty"),
        ({"dims": [8], "p_grid": [1]}, "p must be an integer"),
        ({"dims": [8], "p_grid": [10], "loads": [1.0]}, "either p_grid or loads"),
        ({"dims": [8], "seeds_per_point": 0}, "seeds_per_point"),
        ({"dims": [8], "raw_margin": 0.0}, r"raw_margin must be .*> 0.*, got 0"),
        ({"dims": [4], "kappas": [0.1]}, "rank"),
        ({"kappas": [1.0]}, "'dims' is required"),
    ],
)
def test_bad_parameters_raise_value_error(mapping: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Sweep.from_mapping(mapping)


def test_round_trip_through_mapping() -> None:
    sweep = Sweep(dims=(8, 16), kappas=(0.5,), p_grid=(10, 20), seeds_per_point=2)
    assert Sweep.from_mapping(sweep.to_mapping()) == sweep


# ------------------------------------------------------------------------ shards


def test_shards_are_disjoint_cover_the_grid_and_are_deterministic() -> None:
    from lamcap.experiments._sweep import parse_shard

    sweep = Sweep(
        dims=(8, 12), models=("decoupled", "original"), loads=(0.8, 1.2), seeds_per_point=5
    )
    every = {task.key() for task in sweep.fixed_tasks()}
    assert len(every) == 2 * 2 * 2 * 5
    for count in (1, 3, 7, 40, 41):
        shards = [sweep.shard_keys(i, count) for i in range(1, count + 1)]
        assert sum(len(shard) for shard in shards) == len(every)
        assert set().union(*shards) == every
        # balanced to one instance, and a fresh description gives the same slices
        assert max(map(len, shards)) - min(map(len, shards)) <= 1
        again = Sweep.from_mapping(sweep.to_mapping())
        assert [again.shard_keys(i, count) for i in range(1, count + 1)] == shards
    assert parse_shard(" 2 / 3 ") == (2, 3)


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "-1/4", "2", "a/b", "1/2/3", "1.5/2", ""])
def test_bad_shard_is_a_value_error(text: str) -> None:
    from lamcap.experiments._sweep import parse_shard

    with pytest.raises(ValueError, match=r"shard must be I/N with whole numbers 1 <= I <= N, got"):
        parse_shard(text)


def test_adaptive_sweep_cannot_be_sharded() -> None:
    with pytest.raises(ValueError, match="adaptive sweep has no fixed list"):
        Sweep(dims=(8,)).shard_keys(1, 2)


def test_description_identifies_the_sweep() -> None:
    a = Sweep(dims=(8,), p_grid=(10, 20))
    assert a.digest() == Sweep.from_mapping(a.to_mapping()).digest()
    assert a.digest() != Sweep(dims=(8,), p_grid=(10, 21)).digest()
    assert len(a.digest()) == 16


def test_stored_description_keeps_the_database_names() -> None:
    """The store format: the raw margin is written as ``margin`` (STORED_NAMES), so a store
    begun before the rename resumes and merges with the same sweep digest."""
    import hashlib

    sweep = Sweep(dims=(8,), raw_margin=2.0)
    written_by_every_version = (
        '{"bracket":[0.6,0.8,1.0,1.25,1.6],"dims":[8],"kappas":[1.0],"loads":null,'
        '"margin":2.0,"max_seconds":null,"methods":["auto"],"models":["decoupled"],'
        '"name":"sweep","p_grid":null,"rounds":3,"seed":0,"seeds_per_point":8}'
    )
    assert sweep.description() == written_by_every_version
    assert sweep.digest() == hashlib.sha256(written_by_every_version.encode()).hexdigest()[:16]
    assert sweep.to_mapping()["raw_margin"] == 2.0  # the user-facing form uses the new name
    assert Sweep.from_mapping(sweep.to_mapping()) == sweep
    with pytest.raises(ValueError, match=r"unknown sweep parameter\(s\) \['margin'\]"):
        Sweep.from_mapping({"dims": [8], "margin": 2.0})
