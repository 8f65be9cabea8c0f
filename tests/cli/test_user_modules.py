"""What users' modules do that the corpus does not: `@njit(cache=True)`, a --signature for a
kernel kpc keeps as Numba, a kernel a pass keeps as Numba only for the call's types. Found by
the public-style collection (examples/collection). Nothing here compiles C++: every kernel
involved runs as Numba."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np

from kpc.build_file import build
from kpc.runtime.fallback import KpcFallbackWarning

SOURCE = textwrap.dedent("""
    import numpy as np
    from numba import njit


    @njit(cache=True)
    def middle(x):
        return np.linalg.norm(x, 1)


    @njit(cache=True)
    def tries(x):
        try:
            return x[0]
        except Exception:
            return 0.0
""")


def _run(code: str, cwd, env) -> str:
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_numba_cache_of_the_users_module_survives_the_drop_in(tmp_path):
    """Numba's cache=True entries record the module's name; the drop-in module imports the
    source under its own name, so its entries go to kpc's cache: the user's own `import`
    of the source still loads, before and after the drop-in ran."""
    (tmp_path / "user.py").write_text(SOURCE)
    env = dict(os.environ, PYTHONPATH=str(tmp_path), KPC_CACHE_DIR=str(tmp_path / "cache"))
    call = "import numpy as np, user; print(user.middle(np.arange(5.0)), user.tries(np.ones(2)))"
    assert _run(call, tmp_path, env) == "10.0 1.0"  # the user's __pycache__ holds Numba's entries
    report = build(tmp_path / "user.py", target="kokkos", out=tmp_path / "out")
    assert {k.name: k.status for k in report.kernels} == {"middle": "lazy", "tries": "numba"}
    out_env = dict(env, PYTHONPATH=str(tmp_path / "out"))
    dropin = ("import warnings, numpy as np, user; warnings.simplefilter('ignore');"
              "print(user.middle(np.arange(5.0)), user.tries(np.ones(2)))")
    assert _run(dropin, tmp_path / "out", out_env) == "10.0 1.0"
    assert _run(dropin, tmp_path / "out", out_env) == "10.0 1.0"  # its own cache entries, loaded
    assert _run(call, tmp_path, env) == "10.0 1.0"
    assert (tmp_path / "cache" / "numba" / "kpc_original_user").is_dir()


def test_first_call_warning_names_the_construct_a_pass_refused(tmp_path, monkeypatch):
    """A kernel typed at each call that lower-numpy keeps as Numba for the call's types: the
    warning names the construct and the place, not an emitter error about a missing kernel."""
    (tmp_path / "user.py").write_text(SOURCE.replace("cache=True", ""))
    monkeypatch.setenv("KPC_CACHE_DIR", str(tmp_path / "cache"))
    build(tmp_path / "user.py", target="kokkos", out=tmp_path / "out")
    monkeypatch.syspath_prepend(str(tmp_path / "out"))
    import importlib

    sys.modules.pop("user", None)
    module = importlib.import_module("user")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert module.middle(np.arange(5.0)) == 10.0
    finally:
        sys.modules.pop("user", None)
    messages = [str(w.message) for w in caught if issubclass(w.category, KpcFallbackWarning)]
    assert len(messages) == 1 and "user.py:8:12" in messages[0] and "np.linalg.norm" in messages[0]
    assert "unknown kernel" not in messages[0]


def test_signature_of_a_kernel_kept_as_numba(tmp_path):
    """--signature naming a kernel the frontend keeps as Numba (kpc check passes one for every
    kernel of KPC_CASES) is no error: the kernel stays Numba."""
    (tmp_path / "user.py").write_text(SOURCE)
    report = build(tmp_path / "user.py", target="kokkos", out=tmp_path / "out",
                   signatures=["tries(float64[::1])"])
    assert report.error is None
    assert {k.name: k.status for k in report.kernels}["tries"] == "numba"


def test_a_matrix_passed_to_a_helper_whose_body_suggests_vectors_is_typed_at_the_call(tmp_path):
    """Issue 14's example: a helper's own body gives only least ranks (`X @ w`: X at least 1-D),
    the caller reads X.shape[1]: the ranks agree (X 2-D), so the file translates ahead of time with
    no conflict (before least ranks, both were typed at each call), and runs as Numba does."""
    (tmp_path / "fit.py").write_text(textwrap.dedent("""
        import numpy as np
        from numba import njit


        @njit
        def grad(X, y, w):
            p = X @ w
            return X.T @ (p - y)


        @njit
        def train(X, y, epochs):
            w = np.zeros(X.shape[1])
            for e in range(epochs):
                w -= 0.1 * grad(X, y, w)
            return w
    """))
    report = build(tmp_path / "fit.py", target="kokkos", out=tmp_path / "out")
    train = report.kernel("train")
    assert train.status == "translated", train.reason
    assert not any("conflict" in a for a in train.assumptions)
    sys.path.insert(0, str(tmp_path / "out"))
    try:
        import fit

        X, y = np.random.default_rng(3).random((20, 3)), np.random.default_rng(4).random(20)
        w = np.zeros(3)
        for _ in range(5):  # the same steps in NumPy
            w = w - 0.1 * (X.T @ (X @ w - y))
        np.testing.assert_allclose(fit.train(X, y, 5), w, rtol=1e-12)
    finally:
        sys.path.remove(str(tmp_path / "out"))
        sys.modules.pop("fit", None)
