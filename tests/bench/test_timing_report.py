"""The benchmark harness: interleaving, statistics, and the three report formats."""

import json

from kpc.bench import report, timing


def test_interleave_alternates_contenders():
    order = []
    contenders = {"numba": lambda: order.append("n"), "kokkos": lambda: order.append("k")}
    result = timing.interleave(contenders, repeats=7, warmup=1, min_time=0.0)
    assert len(result["numba"].samples) == len(result["kokkos"].samples) == 7
    measured = "".join(order[2 + 2:])  # after warm-up and the calibration calls
    assert "nnn" not in measured and "kkk" not in measured


def test_best_and_median():
    t = timing.Timing([3.0, 1.0, 2.0, 5.0, 4.0, 9.0, 7.0])
    assert t.best == 1.0 and t.median == 4.0


def test_speedup_is_numba_over_target_from_the_same_row():
    row = report.Row("lj", 1000, {"numba": timing.Timing([2.0, 4.0]), "kokkos": timing.Timing([1.0, 1.0])})
    assert row.speedup("kokkos") == 2.0
    assert row.speedup("kokkos", "median") == 3.0


def test_reports_written(tmp_path):
    rows = [report.Row("k", n, {"numba": timing.Timing([n * 2.0]), "kokkos": timing.Timing([n * 1.0])})
            for n in (10, 100)]
    paths = report.write(rows, {"suite": "unit"}, str(tmp_path))
    data = json.loads(open(paths["json"]).read())
    assert data["suite"] == "unit" and len(data["results"]) == 2
    assert data["results"][0]["speedup_best"]["kokkos"] == 2.0
    table = open(paths["md"]).read()
    assert "| k | 100 |" in table and "2.00×" in table
    assert open(paths["png"], "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_geomean_at_largest_size():
    rows = [report.Row("a", 10, {"numba": timing.Timing([1.0]), "t": timing.Timing([1.0])}),
            report.Row("a", 100, {"numba": timing.Timing([4.0]), "t": timing.Timing([1.0])}),
            report.Row("b", 100, {"numba": timing.Timing([1.0]), "t": timing.Timing([1.0])})]
    assert abs(report.geomean([r.speedup("t") for r in report.largest_size_rows(rows)]) - 2.0) < 1e-12


def test_a_written_results_json_loads_back_into_the_same_table(tmp_path):
    rows = [report.Row("triad", 1000, {"numba": timing.Timing([2e-6, 3e-6]), "kokkos": timing.Timing([1e-6, 1.5e-6])},
                       extra={"numba_GBps_best": 12.0, "kokkos_GBps_best": 24.0})]
    paths = report.write(rows, {"suite": "test", "repeats": 2}, str(tmp_path))
    loaded, meta = report.load(paths["json"])
    assert meta == {"suite": "test", "repeats": 2}
    assert report.to_markdown(loaded) == open(paths["md"]).read()
