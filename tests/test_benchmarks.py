"""The benchmark harness, for correctness only: every workload of every installed contender
runs once and agrees with the hand-written NumPy floor. No timings are asserted here."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import run as bench_run  # noqa: E402
from benchmarks import workloads as W  # noqa: E402

CASES = [(wl, name) for wl in W.workloads() for name in wl.contenders if name != "numpy"]


@pytest.fixture(scope="module")
def floors():
    cache = {}

    def floor(wl):
        if wl.name not in cache:
            args = wl.make_args()
            cache[wl.name] = args, wl.contenders["numpy"](*args)
        return cache[wl.name]
    return floor


@pytest.mark.parametrize("wl,name", CASES, ids=[f"{wl.name.split(',')[0]}-{n}" for wl, n in CASES])
def test_contender_agrees_with_hand_written_numpy(wl, name, floors):
    args, want = floors(wl)
    W.check(wl, name, wl.contenders[name](*args), want)


def test_every_workload_has_the_floor_and_gradmagic():
    keys = [wl.key for wl in W.workloads()]
    assert keys == ["W1", "W2", "W3", "W3", "W4", "W5", "W6", "W7", "W8"]
    for wl in W.workloads():
        assert list(wl.contenders)[:2] == ["numpy", "gradmagic"]


@pytest.mark.parametrize("name", ["numpy", "gradmagic", "autograd", "torch", "by hand"])
def test_w5_gives_256_and_1024(name):
    wl = next(wl for wl in W.workloads() if wl.key == "W5")
    if name not in wl.contenders:
        pytest.skip(f"{name} is not installed")
    value, grad = wl.contenders[name](*wl.make_args())
    assert (float(value), float(grad)) == (256.0, 1024.0)


def test_w1_agrees_with_hand_written_numpy():  # moved from test_cli.py
    (gv, gg), (nv, ng) = W.w1_gradmagic(np.float64(0.5)), W.w1_numpy(np.float64(0.5))
    assert gv == np.float64(nv) or np.isclose(gv, nv, rtol=1e-13)
    assert np.isclose(gg, ng, rtol=1e-12)


def test_w3_agrees_with_hand_written_numpy():  # moved from test_cli.py
    args = W.mlp_data(np.float64)
    (gv, gg), (nv, ng) = W.w3_gradmagic(*args), W.w3_numpy(*args)
    assert np.isclose(gv, nv, rtol=1e-12)
    for a, b in zip(gg, ng):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_a_wrong_gradient_stops_the_run():
    wl = next(wl for wl in W.workloads() if wl.key == "W5")
    with pytest.raises(W.Disagreement, match="W5.*gradmagic disagrees.*gradient 0"):
        W.check(wl, "gradmagic", (256.0, 4.0), W.w5_numpy(2.0))


def test_the_table_names_absent_peers_and_targets(monkeypatch):
    monkeypatch.setattr(W, "torch", None)  # as if PyTorch were not installed
    text = bench_run.run(rounds=1, only={"W5"}, log=lambda msg: None)
    row = next(line for line in text.splitlines() if line.startswith("| W5"))
    assert "| absent |" in row and "at most 0.5x autograd" in row
    assert "met" in row or "missed" in row or "not judged: autograd absent" in row
    assert "PyTorch absent" in text and "OMP_NUM_THREADS=" in text


def test_bounds_race_w2_and_w4_to_w7_against_the_engine_free_work_in_their_own_table():
    text = bench_run.run(rounds=1, only={"bounds"}, log=lambda msg: None)
    main, bounds = text.split("## What the targets are up against")
    keys = ["| W2", "| W4", "| W5", "| W6", "| W7"]
    assert [line[:4] for line in main.splitlines() if line.startswith("| W")] == keys
    rows = [line.split(" | ") for line in bounds.splitlines() if line.startswith("| W")]
    assert [r[0][:4] for r in rows] == keys
    assert all(len(r) == 6 for r in rows)
    w2, w4, w5, w6, w7 = rows
    assert w2[3] == "—" and "µs (" in w2[4] and w2[5].startswith("at most 0.6x PyTorch")
    assert ("the least tape" in w2[5]) == ("torch" in W.installed_peers())  # its ratio to PyTorch
    assert "benchmarks/least_tape.py" in bounds
    assert "ms (" in w4[3] and "ms (" in w4[4] and w4[5].startswith("at most 1.1x hand-written NumPy")
    assert "µs (" in w5[3] and "µs (" in w5[4] and w5[5].startswith("at most 0.5x autograd")
    assert "ms (" in w6[4] and "W6 by hand:" in bounds and "W4 by hand:" in bounds
    assert "ms (" in w7[3] and w7[4] == "—" and w7[5].startswith("at most 1.2x hand-written NumPy")
    assert "also the least a tape" in bounds  # W7's by-hand row is both


def test_the_bound_contenders_are_timed_only_when_asked_for(monkeypatch):
    timed = []

    def race(contenders, *args, **kwargs):
        timed.append(set(contenders))
        return bench_run.Race({name: [1e-3] for name in contenders})
    monkeypatch.setattr(bench_run, "race", race)
    text = bench_run.run(rounds=1, only={"W6"}, log=lambda msg: None)
    assert "up against" not in text and timed == [{"numpy", "gradmagic"} | set(W.installed_peers())]
    timed.clear()
    bench_run.run(rounds=1, only={"W6", "bounds"}, log=lambda msg: None)
    assert any({"by hand", "any tape"} < t for t in timed)


def test_only_rejects_unknown_workloads():
    assert bench_run.parse_only("w1,trace") == {"W1", "trace"}
    with pytest.raises(SystemExit, match="unknown workload 'W9'"):
        bench_run.parse_only("W1,W9")


@pytest.mark.parametrize("cmd", [["-m", "benchmarks", "--help"], ["benchmarks/run.py", "--help"],
                                 ["benchmarks/engine.py", "--help"]])
def test_the_runner_starts(cmd):
    proc = subprocess.run([sys.executable, *cmd], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "--rounds" in proc.stdout, proc.stderr


def test_a_disagreeing_contender_fails_the_run_before_any_timing(monkeypatch, capsys):
    monkeypatch.setattr(W, "w5_gradmagic", lambda x: (256.0, 4.0))  # the chain rule cut
    monkeypatch.setattr(bench_run, "race", lambda *a, **k: pytest.fail("timed after a disagreement"))
    assert bench_run.main(["--only", "W1,W5", "--rounds", "1"]) == 1
    assert "FAILED, nothing timed: W5" in capsys.readouterr().err


def test_gpu_benchmark_says_why_it_does_not_run_without_a_gpu(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import gradmagic as gm
    if gm.backend_status("cupy"):
        import pytest
        pytest.skip("a GPU is usable here: the benchmark would run for real")
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "gpu.md"
    proc = subprocess.run([sys.executable, "benchmarks/gpu.py", "--output", str(out)], cwd=root,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "no GPU benchmark here:" in proc.stdout and not out.exists()


def test_targets_are_ratios_to_the_floor_or_the_peers_of_the_same_run():
    # 30 µs per call, the peers twice and four times slower: the row says how gradmagic
    # stands to the peer the target names, and to those it must also be below
    samples = {"numpy": [1e-6] * 3, "gradmagic": [30e-6] * 3, "autograd": [60e-6] * 3,
               "torch": [120e-6] * 3}
    wl = next(wl for wl in W.workloads() if wl.key == "W5")
    goal, result = bench_run.target("W5", bench_run.Race(samples), wl)
    assert (goal, result) == ("at most 0.5x autograd", "met (0.50x autograd)")
    samples["gradmagic"] = [40e-6] * 3
    assert bench_run.target("W5", bench_run.Race(samples), wl)[1] == "**missed** (0.67x autograd)"
    goal, result = bench_run.target("W1", bench_run.Race(samples), wl)
    assert goal == "at most 0.5x PyTorch, below autograd"
    assert result == "met (0.33x PyTorch; 0.67x autograd)"
    del samples["autograd"]
    assert bench_run.target("W5", bench_run.Race(samples), wl)[1] == "not judged: autograd absent"
    assert bench_run.target("W7", bench_run.Race(samples), wl)[1] == "**missed** (40.00x hand-written NumPy; 0.33x PyTorch)"


# -- benchmarks/instructions.py: counts by place, from callgrind_annotate's lines -------------
ANNOTATED = """\
--------------------------------------------------------------------------------
Ir                    file:function
--------------------------------------------------------------------------------
2,207,285,242 (100.0%)  PROGRAM TOTALS
323,722,621 (14.67%)  /tmp/b/Python-3.11.7/Python/ceval.c:_PyEval_EvalFrameDefault'2 [/usr/lib/libpython3.11.so.1.0]
  2,296 ( 0.00%)  /tmp/b/Python-3.11.7/./Include/object.h:_PyFrame_Clear
 63,252 ( 0.01%)  ???:npy_multiply [/venv/site-packages/numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so]
  7,000 ( 0.00%)  ???:at::native::add [/venv/site-packages/torch/lib/libtorch_cpu.so]
 19,703 ( 0.00%)  ./string/memmove.S:__memcpy_avx_unaligned_erms [/usr/lib/x86_64-linux-gnu/libc.so.6]
"""


def test_instructions_are_counted_by_place():
    from benchmarks import instructions
    found = instructions.places(ANNOTATED)
    assert found == {"interpreter": 323_722_621 + 2_296, "NumPy": 63_252, "PyTorch": 7_000,
                     "other": 19_703, "all": 323_722_621 + 2_296 + 63_252 + 7_000 + 19_703}


def test_instructions_without_valgrind_say_so(monkeypatch, capsys):
    from benchmarks import instructions
    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    assert instructions.main(["--only", "W5"]) == 2
    assert "valgrind is not installed" in capsys.readouterr().err


def test_instructions_child_runs_one_contender():
    done = subprocess.run([sys.executable, "-m", "benchmarks.instructions", "--child", "W5", "gradmagic", "1"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_instructions_header_names_the_versions():
    from benchmarks import instructions
    text = instructions.header()
    assert f"NumPy {np.__version__}" in text and "Python " in text and "method:" in text


def test_instructions_refuse_an_unknown_workload():
    from benchmarks import instructions
    with pytest.raises(SystemExit, match="unknown workload 'W9'"):
        instructions.main(["--only", "W9"])


def test_instructions_compiled_without_cython_say_so(monkeypatch, capsys):
    from benchmarks import instructions
    monkeypatch.setattr(instructions.shutil, "which", lambda name: "/usr/bin/" + name)
    real = instructions.importlib.util.find_spec
    monkeypatch.setattr(instructions.importlib.util, "find_spec",
                        lambda name, *a: None if name == "Cython" else real(name, *a))
    assert instructions.main(["--only", "W5", "--compiled"]) == 2
    assert "--compiled needs Cython" in capsys.readouterr().err


def test_instructions_child_refuses_a_copy_it_did_not_import(tmp_path):
    # a path that holds no gradmagic: the child imports the checkout's and must say so, since
    # counting it as the compiled copy would be a silent wrong figure
    from benchmarks import instructions
    done = subprocess.run([sys.executable, "-m", "benchmarks.instructions", "--child", "W5",
                           instructions.COMPILED, "1", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0 and f"not {tmp_path}" in done.stderr


@pytest.mark.skipif(importlib.util.find_spec("Cython") is None or shutil.which("cc") is None,
                    reason="Cython or a C compiler is not installed (neither is gradmagic's dependency)")
def test_instructions_compile_the_engine_unchanged(tmp_path):
    from benchmarks import instructions
    root = instructions.compile_engine(str(tmp_path), names=("tape", "context"))  # all: minutes
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import gradmagic as gm; "
            "import gradmagic.core.tape as t; x = gm.constant(3.0)\n"
            "with gm.GradientTape() as tape:\n    tape.watch(x); y = x * x\n"
            "print(t.__file__, float(tape.gradient(y, x)))")
    done = subprocess.run([sys.executable, "-c", code, root], capture_output=True, text=True, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    where, value = done.stdout.split()
    assert where.startswith(root) and where.endswith(".so") and float(value) == 6.0
