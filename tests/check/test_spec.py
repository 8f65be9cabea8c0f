"""kpc.check.spec and kpc.check.inputs: reading KPC_CASES statically, making arguments."""

import textwrap

import numpy as np
import pytest

from kpc.check.inputs import make_inputs, variants
from kpc.check.spec import (
    ArrayParam, CaseSpecError, IndexParam, ScalarParam, eval_size, load_cases, size_names,
)

KERNEL = """
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def count(idx, hist, w, scale, n_iter=1):
    for i in prange(idx.shape[0]):
        hist[idx[i]] += 1

KPC_CASES = {cases}
"""

GOOD = """{
    "count": {
        "args": {
            "idx": {"kind": "index", "shape": ("n",), "high": "bins"},
            "hist": {"kind": "array", "shape": ("bins",), "dtype": "int64", "low": 0, "high": 5},
            "w": ("n", "m+2"),
            "scale": {"kind": "scalar", "value": "n // 2", "dtype": "case"},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 0, "m": 1, "bins": 1}, {"n": 7, "m": 0, "bins": 3}],
        "writes": ["hist"],
        "layouts": ["C", "F", "strided"],
        "rtol": {"float32": 1e-4},
        "serial_reference": True,
    },
}"""


def write(tmp_path, cases, source=KERNEL):
    path = tmp_path / "kernel.py"
    path.write_text(textwrap.dedent(source).format(cases=cases))
    return path


def test_reads_full_case_without_importing(tmp_path):
    path = write(tmp_path, GOOD, KERNEL.replace("import numpy", "import not_a_module_at_all\nimport numpy"))
    case = load_cases(path).cases["count"]
    idx, hist, w, scale = case.params
    assert idx == IndexParam("idx", ("n",), high="bins")
    assert hist == ArrayParam("hist", ("bins",), dtype="int64", low=0, high=5)
    assert w == ArrayParam("w", ("n", "m+2"))
    assert scale == ScalarParam("scale", "n // 2", "case")
    assert case.dtypes == ("float64", "float32")
    assert case.writes == ("hist",) and case.serial_reference
    assert case.tolerance("float32") == (1e-4, None)
    assert case.tolerance("float64") == (1e-12, None)


def test_defaults(tmp_path):
    path = write(tmp_path, '{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), '
                           '"scale": {"kind": "scalar", "value": 2.0}}, "sizes": [{"n": 3}]}}')
    case = load_cases(path).cases["count"]
    assert case.dtypes == ("float64",) and case.layouts == ("C",) and case.writes == ()
    assert not case.serial_reference


@pytest.mark.parametrize("cases, message", [
    ('{"nope": {"args": {}, "sizes": [{}]}}', "no top-level function 'nope'"),
    ('{"count": {"args": {"hist": ("n",)}, "sizes": [{"n": 1}]}}', "do not match the signature"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": 1}], "wrties": []}}',
     "unknown key(s) ['wrties']"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), "scale": ("n",)}}}', "missing required key 'sizes'"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n**2",), "scale": ("n",)}, "sizes": [{"n": 1}]}}',
     "KPC_CASES['count']['args']['w']['shape']: 'n**2' is not a size expression"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("k",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": 1}]}}',
     "uses ['k'], not set in sizes[0]"),
    ('{"count": {"args": {"idx": ("n-2",), "hist": ("n",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": 1}]}}',
     "'n-2' is -1 < 0"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": 1}], "writes": ["scale2"]}}',
     "'scale2' is not an array parameter"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), "scale": {"kind": "scalar"}}, "sizes": [{"n": 1}]}}',
     "a scalar needs a 'value'"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": 1}], "dtypes": ["float128"]}}',
     "unknown dtype 'float128'"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": 1}], "layouts": ["F"]}}',
     "must include 'C'"),
    ('{"count": {"args": {"idx": {"kind": "index", "shape": ("n",)}, "hist": ("n",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": 1}]}}',
     "needs 'high'"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": 1}], "rtol": {"float32": 1e-3}}}',
     "'float32' is not one of this case's dtypes"),
    ('{"count": {"args": {"idx": ("n",), "hist": ("n",), "w": ("n",), "scale": ("n",)}, "sizes": [{"n": SIZE}]}}',
     "must be a plain literal"),
])
def test_errors_name_file_and_key(tmp_path, cases, message):
    path = write(tmp_path, cases)
    with pytest.raises(CaseSpecError) as info:
        load_cases(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_missing_and_duplicate_blocks(tmp_path):
    path = tmp_path / "k.py"
    path.write_text("def f(x):\n    return x\n")
    with pytest.raises(CaseSpecError, match="no module-level KPC_CASES"):
        load_cases(path)
    path.write_text("def f(x):\n    return x\nKPC_CASES = {}\nKPC_CASES = {}\n")
    with pytest.raises(CaseSpecError, match="assigned 2 times"):
        load_cases(path)


def test_size_expressions():
    assert eval_size("n+2", {"n": 5}) == 7
    assert eval_size("(n - 1) // 2 * m % 5", {"n": 8, "m": 3}) == 9 % 5
    assert eval_size(4, {}) == 4
    assert size_names("n + 2*m") == {"n", "m"}
    with pytest.raises(ValueError):
        size_names("__import__('os')")


def test_inputs_follow_spec_in_every_layout(tmp_path):
    case = load_cases(write(tmp_path, GOOD)).cases["count"]
    sizes = {"n": 7, "m": 0, "bins": 3}
    base = make_inputs(case, "float32", sizes, "C").args()
    for layout in case.layouts:
        idx, hist, w, scale = make_inputs(case, "float32", sizes, layout).args()
        assert idx.dtype == np.int64 and idx.min() >= 0 and idx.max() < 3
        assert hist.dtype == np.int64 and hist.shape == (3,) and (0 <= hist).all() and (hist < 5).all()
        assert w.dtype == np.float32 and w.shape == (7, 2)
        assert scale == np.float32(3) and type(scale) is np.float32
        assert np.array_equal(w, base[2]) and np.array_equal(idx, base[0])
        if layout == "F":
            assert w.flags.f_contiguous and not w.flags.c_contiguous
        if layout == "strided":
            assert w.strides == (16, 8) and not w.flags.c_contiguous


def test_call_gives_fresh_copies_and_records_writes(tmp_path):
    case = load_cases(write(tmp_path, GOOD)).cases["count"]
    inputs = make_inputs(case, "float64", {"n": 7, "m": 1, "bins": 3}, "strided")

    def count(idx, hist, w, scale, n_iter=1):
        for i in idx:
            hist[i] += 1

    first, second = inputs.call(count), inputs.call(count)
    assert np.array_equal(first.written["hist"], second.written["hist"])
    assert first.written["hist"].sum() == inputs.values[1].sum() + 7
    assert first.stray_writes == ()

    def scribble(idx, hist, w, scale, n_iter=1):
        w[0, 0] = 1.0
        hist.base[1] = 0

    assert inputs.call(scribble).stray_writes == ("hist (outside the strided view)", "w (not declared in writes)")


def test_lattice_points_keep_their_distance(tmp_path):
    source = "def potential(cluster):\n    pass\n\nKPC_CASES = {cases}\n"
    cases = '{"potential": {"args": {"cluster": {"kind": "array", "shape": ("n", 3), "values": "lattice", "spacing": 1.1}}, "sizes": [{"n": 100}]}}'
    case = load_cases(write(tmp_path, cases, source)).cases["potential"]
    (points,) = make_inputs(case, "float64", {"n": 100}).args()
    d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
    assert d[~np.eye(100, dtype=bool)].min() >= 0.8 * 1.1


def test_nan_values_put_nans_in_floats_first_element_included(tmp_path):
    source = "def extremes(x):\n    pass\n\nKPC_CASES = {cases}\n"
    cases = '{"extremes": {"args": {"x": {"kind": "array", "shape": ("n",), "values": "nan"}}, "sizes": [{"n": 200}], "dtypes": ["float64", "int64"]}}'
    case = load_cases(write(tmp_path, cases, source)).cases["extremes"]
    (x,) = make_inputs(case, "float64", {"n": 200}).args()
    assert np.isnan(x[0]) and 5 <= np.isnan(x).sum() <= 60 and np.isfinite(x).sum() >= 140
    (k,) = make_inputs(case, "int64", {"n": 200}).args()
    assert k.dtype == np.int64


def test_variants_enumerate_every_combination(tmp_path):
    case = load_cases(write(tmp_path, GOOD)).cases["count"]
    assert len(list(variants(case))) == 2 * 2 * 3
