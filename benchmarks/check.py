"""What ``gm.trace(check=True)`` costs: tutorial 6's MLP, one training step, timed untraced,
inside ``gm.trace()`` and inside ``gm.trace(check=True)`` (the checks run as the block ends).

    python benchmarks/check.py [--steps N] [--rounds R]

Two models: the tutorial's MLP as written (``@gm.traced`` layers, no custom gradient), and
the same MLP with its ``tanh`` as a ``custom_gradient`` function (so the check reviews one
function, once per input shape in a trace, against its recorded body). Each round times
``--steps`` steps of every variant, interleaved: a trace per step, and the whole loop in
one checking trace (as ``%%gradtrace --check`` over a training loop); the table gives the
median time per step and its ratio to the untraced step. BLAS runs on one thread. Timings
are never pass/fail tests.
"""

import os
import sys

if __package__ in (None, ""):  # run as a script: pin threads before NumPy loads
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import _pin

    _pin.pin_threads()

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import gradmagic as gm  # noqa: E402


def tutorial_data():
    """Tutorial 6's data and parameters."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((8, 3))
    Y = np.sin(X.sum(axis=1, keepdims=True))
    params = {"W1": rng.standard_normal((3, 4)) * 0.5, "b1": np.zeros(4),
              "W2": rng.standard_normal((4, 1)) * 0.5, "b2": np.zeros(1)}
    return X, Y, params


@gm.custom_gradient
def tanh(x):
    y = np.tanh(x)
    return y, lambda upstream: upstream * (1 - y * y)


def model(activation):
    @gm.traced
    def layer(x, W, b):
        return activation(x @ W + b)

    def mlp(p, x):
        return layer(x, p["W1"], p["b1"]) @ p["W2"] + p["b2"]
    return mlp


def step(mlp, p, x, y):
    """One step of the tutorial's training loop."""
    with gm.GradientTape() as tape:
        loss = np.mean((mlp(p, x) - y) ** 2)
    for k, g in tape.gradient(loss, p).items():
        p[k].assign_sub(0.2 * g)
    return loss


def variants(mlp, p, x, y):
    def untraced():
        step(mlp, p, x, y)

    def traced():
        with gm.trace():
            step(mlp, p, x, y)

    def checked():
        with gm.trace(check=True) as tr:
            step(mlp, p, x, y)
        assert tr.pitfalls == [], [f.message for f in tr.pitfalls]
    def loop(n):  # the whole sample in one trace, as %%gradtrace --check over a training loop
        with gm.trace(check=True) as tr:
            for _ in range(n):
                step(mlp, p, x, y)
        assert tr.pitfalls == [], [f.message for f in tr.pitfalls]
    return {"untraced": untraced, "gm.trace()": traced, "gm.trace(check=True)": checked,
            "the loop in one gm.trace(check=True)": loop}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200, help="steps per timed sample (default 200)")
    parser.add_argument("--rounds", type=int, default=7, help="timed samples per variant (default 7)")
    args = parser.parse_args(argv)
    X, Y, params = tutorial_data()
    x, y = gm.constant(X), gm.constant(Y)
    lines = ["| model | variant | time per step | ratio to untraced |", "|---|---|---|---|"]
    for label, act in (("tutorial 6 MLP (np.tanh)", np.tanh), ("MLP, custom_gradient tanh", tanh)):
        p = {k: gm.Variable(v, name=k) for k, v in params.items()}
        runs = variants(model(act), p, x, y)
        times = {name: [] for name in runs}
        loop = runs.pop("the loop in one gm.trace(check=True)")
        for fn in runs.values():
            fn()  # warm up
        for _ in range(args.rounds):
            for name, fn in runs.items():
                start = time.perf_counter()
                for _ in range(args.steps):
                    fn()
                times[name].append((time.perf_counter() - start) / args.steps)
            start = time.perf_counter()
            loop(args.steps)
            times.setdefault("the loop in one gm.trace(check=True)", []).append(
                (time.perf_counter() - start) / args.steps)
        base = statistics.median(times["untraced"])
        for name, ts in times.items():
            t = statistics.median(ts)
            lines.append(f"| {label} | {name} | {t * 1e6:.0f} µs | {t / base:.2f}x |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
