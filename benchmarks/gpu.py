"""The MLP step on a GPU: gradmagic on CuPy against the same math hand-written in CuPy.

    python benchmarks/gpu.py [--rounds N] [--size BATCHxWIDTH ...] [--output FILE]

float32, a 2-hidden-layer tanh MLP (width -> width -> width -> 1), MSE loss, the gradients
of all weights, at two sizes by default: 4096x4096 (the GPU busy) and batch 64, width 256
(each op small: what the Python around the kernels costs). Contenders: the step
hand-written in CuPy (the floor), gradmagic, gradmagic inside ``with gm.trace():`` and,
when it is installed with CUDA, PyTorch eager on the same GPU. Each is checked against
the floor first; then they are timed interleaved round by round with CUDA events after
warm-up, and medians reported. Targets: gradmagic within 1.05x of the floor at both
sizes; traced within 1.05x of untraced at 4096 and 1.3x at 64x256. Where no GPU is usable
it says why and exits with status 0, writing nothing.
"""

import argparse
import datetime
import statistics
import sys
from pathlib import Path

import gradmagic as gm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import w3_gradmagic, w3_numpy, w3_traced  # noqa: E402

SIZES = ((4096, 4096), (64, 256))  # (batch, width)
TARGETS = {"gradmagic": 1.05, "traced": {4096: 1.05, 256: 1.3}}


def params(cp, width, seed=0):
    rng = cp.random.default_rng(seed)
    scale = 1 / width ** 0.5
    return [(rng.standard_normal((width, width), dtype=cp.float32) * scale), cp.zeros(width, cp.float32),
            (rng.standard_normal((width, width), dtype=cp.float32) * scale), cp.zeros(width, cp.float32),
            (rng.standard_normal((width, 1), dtype=cp.float32) * scale), cp.zeros(1, cp.float32)]


def contenders(cp):
    """name -> step(params, x, y) -> (loss, gradients), every array a CuPy one."""
    out = {"CuPy by hand": lambda ps, x, y: w3_numpy(ps, x, y, xp=cp),
           "gradmagic": w3_gradmagic,
           "gradmagic traced": w3_traced}
    try:
        import torch
        if not torch.cuda.is_available():
            return out
    except ImportError:
        return out

    def torch_step(ps, x, y):
        ts = [torch.from_dlpack(p).requires_grad_() for p in ps]
        tx, ty = torch.from_dlpack(x), torch.from_dlpack(y)
        W1, b1, W2, b2, W3, b3 = ts
        d = torch.tanh(torch.tanh(tx @ W1 + b1) @ W2 + b2) @ W3 + b3 - ty
        loss = torch.mean(d * d)
        loss.backward()
        return cp.from_dlpack(loss.detach()), [cp.from_dlpack(t.grad) for t in ts]
    out[f"PyTorch {torch.__version__}"] = torch_step
    return out


def timed(cp, fn, *args):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    fn(*args)
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end)  # milliseconds


def race(cp, steps, args, rounds):
    """Median milliseconds of each step, timed interleaved, after three warm-up calls."""
    for _ in range(3):  # kernels compiled, memory pool filled
        for fn in steps.values():
            timed(cp, fn, *args)
    times = {name: [] for name in steps}
    for k in range(rounds):
        names = list(steps) if k % 2 == 0 else list(reversed(steps))
        for name in names:
            times[name].append(timed(cp, steps[name], *args))
    return {name: statistics.median(t) for name, t in times.items()}


def agree(cp, want, got):
    (lw, gw), (lg, gg) = want, got
    return bool(cp.allclose(lw, lg, rtol=1e-4)) and all(
        bool(cp.allclose(a, b, rtol=1e-3, atol=1e-5)) for a, b in zip(gw, gg))


def _size(text):
    try:
        batch, width = (int(n) for n in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected BATCHxWIDTH (64x256), got {text!r}") from None
    return batch, width


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--size", type=_size, action="append", metavar="BATCHxWIDTH",
                        help="a batch and width to time (default: 4096x4096 and 64x256)")
    parser.add_argument("--output", default=str(Path(__file__).with_name("results-gpu.md")))
    args = parser.parse_args(argv)
    status = gm.backend_status("cupy")
    if not status:
        print(f"benchmarks/gpu.py: no GPU benchmark here: {status.reason}")
        return 0
    import cupy as cp
    steps = contenders(cp)
    peers = [name for name in steps if name.startswith("PyTorch")]
    rows = []
    for batch, width in args.size or SIZES:
        ps = params(cp, width)
        rng = cp.random.default_rng(1)
        data = (ps, rng.standard_normal((batch, width), dtype=cp.float32),
                rng.standard_normal((batch, 1), dtype=cp.float32))
        floor = steps["CuPy by hand"](*data)
        wrong = [name for name, fn in steps.items() if not agree(cp, floor, fn(*data))]
        if wrong:
            print(f"benchmarks/gpu.py: {', '.join(wrong)} disagree with the hand-written CuPy step")
            return 1
        t = race(cp, steps, data, args.rounds)
        hand, magic, traced = t["CuPy by hand"], t["gradmagic"], t["gradmagic traced"]
        limit = TARGETS["traced"].get(width, TARGETS["traced"][256])
        verdicts = ("met" if magic / hand <= TARGETS["gradmagic"] else "missed",
                    "met" if traced / magic <= limit else "missed")
        rows.append(f"| {width}-{width}-{width}-1, batch {batch} | {hand:.2f} ms | {magic:.2f} ms "
                    f"({magic / hand:.3f}x) | {traced:.2f} ms ({traced / magic:.3f}x untraced) | "
                    + "".join(f"{t[p]:.2f} ms ({t[p] / hand:.3f}x) | " for p in peers)
                    + f"{TARGETS['gradmagic']}x: {verdicts[0]}; traced {limit}x: {verdicts[1]} |")
    device = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    device = device.decode() if isinstance(device, bytes) else device
    text = (f"# gradmagic on a GPU\n\n- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n"
            f"- device: {device}; CuPy {cp.__version__}; gradmagic {gm.__version__}\n"
            f"- method: MLP step, float32; {args.rounds} interleaved rounds after 3 warm-up steps, "
            "CUDA events, medians; ratios: gradmagic to the floor, traced to untraced, peers to the floor\n\n"
            "| MLP | CuPy by hand | gradmagic | gradmagic traced | " + "".join(f"{p} | " for p in peers)
            + "targets |\n|" + "---|" * (5 + len(peers)) + "\n" + "\n".join(rows) + "\n")
    print(text)
    Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
