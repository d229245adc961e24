"""The MLP step at GPU scale: gradmagic on CuPy against the same math hand-written in CuPy.

    python benchmarks/gpu.py [--rounds N] [--batch 4096] [--width 4096] [--output FILE]

float32, a 2-hidden-layer tanh MLP (width -> width -> width -> 1), MSE loss, the gradients
of all weights; each step timed with CUDA events after warm-up, the two contenders
interleaved round by round; medians and their ratio (target: within 1.1x). Where no GPU
is usable it says why and exits with status 0, writing nothing.
"""

import argparse
import datetime
import statistics
import sys
from pathlib import Path

import gradmagic as gm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import w3_gradmagic, w3_numpy  # noqa: E402


def params(cp, width, seed=0):
    rng = cp.random.default_rng(seed)
    scale = 1 / width ** 0.5
    return [(rng.standard_normal((width, width), dtype=cp.float32) * scale), cp.zeros(width, cp.float32),
            (rng.standard_normal((width, width), dtype=cp.float32) * scale), cp.zeros(width, cp.float32),
            (rng.standard_normal((width, 1), dtype=cp.float32) * scale), cp.zeros(1, cp.float32)]


def by_hand(cp, ps, x, y):
    return w3_numpy(ps, x, y, xp=cp)


def with_gradmagic(cp, ps, x, y):
    return w3_gradmagic(ps, x, y)


def timed(cp, fn, *args):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    fn(cp, *args)
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end)  # milliseconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--output", default=str(Path(__file__).with_name("results-gpu.md")))
    args = parser.parse_args(argv)
    status = gm.backend_status("cupy")
    if not status:
        print(f"benchmarks/gpu.py: no GPU benchmark here: {status.reason}")
        return 0
    import cupy as cp
    ps = params(cp, args.width)
    rng = cp.random.default_rng(1)
    x = rng.standard_normal((args.batch, args.width), dtype=cp.float32)
    y = rng.standard_normal((args.batch, 1), dtype=cp.float32)
    (lh, gh), (lg, gg) = by_hand(cp, ps, x, y), with_gradmagic(cp, ps, x, y)
    if not (cp.allclose(lh, lg, rtol=1e-4) and all(cp.allclose(a, b, rtol=1e-3, atol=1e-5) for a, b in zip(gh, gg))):
        print("benchmarks/gpu.py: gradmagic's gradients disagree with the hand-written CuPy ones")
        return 1
    for _ in range(3):  # warm-up: kernels compiled, memory pool filled
        timed(cp, by_hand, ps, x, y)
        timed(cp, with_gradmagic, ps, x, y)
    hand, magic = [], []
    for _ in range(args.rounds):
        hand.append(timed(cp, by_hand, ps, x, y))
        magic.append(timed(cp, with_gradmagic, ps, x, y))
    h, m = statistics.median(hand), statistics.median(magic)
    device = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    device = device.decode() if isinstance(device, bytes) else device
    verdict = "met" if m / h <= 1.1 else "missed"
    text = (f"# gradmagic on a GPU\n\n- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n"
            f"- device: {device}; CuPy {cp.__version__}; gradmagic {gm.__version__}\n"
            f"- method: {args.rounds} interleaved rounds after 3 warm-up steps, CUDA events, medians\n\n"
            "| workload | hand-written CuPy | gradmagic on CuPy | ratio | target |\n|---|---|---|---|---|\n"
            f"| MLP {args.width}-{args.width}-{args.width}-1, batch {args.batch}, float32 | "
            f"{h:.2f} ms | {m:.2f} ms | {m / h:.3f}x | within 1.1x: {verdict} |\n")
    print(text)
    Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
