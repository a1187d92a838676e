"""benchmarks.floor's arithmetic: the workload's floor is the sum of its benchmarks', and the report's ratios are theirs."""

from __future__ import annotations

import json

import pytest

from benchmarks.floor import Floor, report


def _part(shape: tuple[int, int], draws: float, reads: dict[str, float], actual: dict[str, float]) -> Floor:
    return Floor(draws=draws, reads=dict(reads), actual=dict(actual), cells=100, shape=shape)


def test_a_workloads_floor_is_the_sum_of_its_benchmarks_and_each_is_reported() -> None:
    """Two benchmarks' floors add up, family by family; the report gives each benchmark its own ratio (its draws and
    fast paths over its own floor) and the JSON keeps every part."""
    floor = Floor()
    floor.add("small", _part((2, 5), 1.0, {"US": 0.5, "UCB-E": 0.5}, {"US": 1.0, "UCB-E": 4.0}))
    floor.add("large", _part((3, 7), 2.0, {"SR": 2.0}, {"SR": 10.0}))
    assert floor.draws == 3.0 and floor.cells == 200 and floor.total == pytest.approx(6.0)
    assert floor.reads == {"US": 0.5, "UCB-E": 0.5, "SR": 2.0}
    assert floor.actual == {"US": 1.0, "UCB-E": 4.0, "SR": 10.0}
    lines = report("w7", floor)
    assert "    small (2 x 5): 2.00 s; 6.00 s = 3.0 x; US 1.00, UCB-E 4.00" in lines
    assert "    large (3 x 7): 4.00 s; 12.00 s = 3.0 x; SR 10.00" in lines
    assert "  all: drawing and the fast paths 18.00 s CPU = 3.0 x the floor" in lines
    numbers = json.loads(json.dumps(floor.numbers()))
    assert numbers["total"] == pytest.approx(6.0)
    assert numbers["benchmarks"]["large"] == {
        "draws": 2.0,
        "reads": {"SR": 2.0},
        "actual": {"SR": 10.0},
        "cells": 100,
        "total": 4.0,
        "shape": [3, 7],
    }


def test_a_floor_without_fast_paths_reports_no_ratios() -> None:
    """Without --families there is nothing to set beside the floor: no family's ratio, no benchmark lines."""
    floor = Floor()
    floor.add("small", _part((2, 5), 1.0, {"US": 0.5}, {}))
    lines = report("w107", floor)
    assert lines == [
        "W107 floor: 1.50 s CPU: drawing 1.00 s, reading 0.00 G cells 0.50 s",
        "  US: reading its cells 0.50 s",
    ]
