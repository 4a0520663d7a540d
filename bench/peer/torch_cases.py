"""The cases of bench/peer/cases.R in PyTorch eager, timed on the inputs pjrt's run wrote.

Each input arrives as the row-major bytes of the very buffer pjrt ran on (made from an R array),
so both sides compute on the same values. Prints one line per case, `name<TAB>seconds`, the
median of `iterations` timed runs after untimed ones (see WARMUP), and writes each case's first
result as row-major bytes next to its inputs for peer.R to compare (bf16 as its raw 16-bit
patterns, which numpy has no type for). PyTorch is a yardstick here, never a dependency of
pjrt: run it through Debian's python3-torch (/usr/bin/python3).

usage: /usr/bin/python3 torch_cases.py <folder> <threads> <iterations> [--serve]
       [--warmup-seconds S]

With --serve it reads case names from standard input, one a line, and answers each with its
line as soon as it has timed it (peer.R times each case in pjrt and here back to back).
"""
import os
import statistics
import sys
import time

import torch

DTYPES = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16,
          "c64": torch.complex64, "i32": torch.int32}

# The number of segments of cases.R's segment_sum, which its inputs do not tell.
SEGMENTS = 1000


def load_inputs(folder):
    cases = {}
    with open(os.path.join(folder, "manifest.tsv")) as manifest:
        for line in manifest:
            name, dtype, dims, path = line.rstrip("\n").split("\t")
            shape = [int(d) for d in dims.split(",")] if dims else []
            data = bytearray(open(path, "rb").read())
            tensor = torch.frombuffer(data, dtype=DTYPES[dtype]).reshape(shape)
            cases.setdefault(name, []).append(tensor)
    return cases


def softmax_layernorm(x):
    return torch.nn.functional.layer_norm(torch.softmax(x, 1), (x.shape[1],), eps=1e-5)


def mlp(x, w1, b1, w2, b2):
    return torch.addmm(b2, torch.relu(torch.addmm(b1, x, w1)), w2)


def chain(x):
    return -(torch.clamp_min(torch.tanh(x * 1.5 + 0.5) * 2.0 - 0.1, 0.0) + x)


def einsum(a, c):
    return torch.einsum("bij,bjk->bik", a, c)


def argmax(x):
    return torch.argmax(x, 1).to(torch.int32)


def embedding(table, idx):
    return table[idx]


def cumsum(x):
    return torch.cumsum(x, 0)


def rnn(xs, w, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = torch.tanh(h @ w + xs[t])
    return h


def logistic(x, y, w):
    return w - (torch.sigmoid(x @ w) - y) @ x * (0.1 / x.shape[0])


def matmul(a, b):
    return a @ b


def cholesky(a):
    return torch.linalg.cholesky(a)


def triangular_solve(a, b):
    return torch.linalg.solve_triangular(a, b, upper=False)


def top_k(x):
    return torch.topk(x, 10, dim=1)


def sort(x):
    return torch.sort(x).values


def segment_sum(data, ids):
    return torch.zeros(SEGMENTS, data.shape[1], dtype=data.dtype).index_add_(0, ids, data)


def fft(x):
    return torch.fft.fft(x, dim=1)


def conv(x, w):
    # NHWC input and HWIO kernel as PyTorch's NCHW and OIHW views (strides only, no copy);
    # the result back as NHWC.
    y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1), padding=1)
    return y.permute(0, 2, 3, 1)


def max_pool(x, g):
    # The pooled NHWC images and the gradient of <pooled, g> with respect to x (timed() runs
    # under no_grad: the backward pass needs autograd back on).
    with torch.enable_grad():
        x = x.detach().requires_grad_()
        y = torch.nn.functional.max_pool2d(x.permute(0, 3, 1, 2), 3, stride=1, padding=1)
        y = y.permute(0, 2, 3, 1)
        (dx,) = torch.autograd.grad(y, x, g)
    return y.detach(), dx


FUNCTIONS = {f.__name__: f for f in (softmax_layernorm, mlp, chain, einsum, argmax, embedding,
                                     cumsum, rnn, logistic, matmul, cholesky, triangular_solve,
                                     top_k, sort, segment_sum, fft, max_pool)}
# Cases that run one function on inputs of another dtype or size.
FUNCTIONS.update(matmul_bf16=matmul, cholesky_f32=cholesky, conv_resnet=conv, conv_lenet=conv)


def prepared(name, inputs):
    # Index tensors as PyTorch takes them (int64), converted once, outside the timing.
    if name in ("embedding", "segment_sum"):
        return [inputs[0], inputs[1].long()]
    return inputs


def write_result(result, path):
    # The first result of those that come as a tuple (top_k's values), in row-major order.
    if isinstance(result, tuple):
        result = result[0]
    result = result.contiguous()
    if result.dtype == torch.bfloat16:
        result = result.view(torch.int16)
    result.numpy().tofile(path)


# Untimed runs before the timed ones, as peer.R gives pjrt: at least WARMUP of them and at least
# --warmup-seconds of them (0 unless given): first runs fault in fresh memory and choose kernels
# (and pjrt re-lays an R matrix out by rows at its second run).
WARMUP = 3


def timed(name, args, iterations, warmup_seconds):
    """The median of `iterations` timed runs after the untimed ones, and the first result."""
    fn = FUNCTIONS[name]
    with torch.no_grad():
        start = time.perf_counter()
        result = fn(*args)
        runs = 1
        while runs < WARMUP or time.perf_counter() - start < warmup_seconds:
            fn(*args)
            runs += 1
        times = []
        for _ in range(iterations):
            start = time.perf_counter()
            fn(*args)
            times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    folder, threads, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    serve = "--serve" in sys.argv[4:]
    warmup_seconds = 0.0
    if "--warmup-seconds" in sys.argv[4:]:
        warmup_seconds = float(sys.argv[sys.argv.index("--warmup-seconds") + 1])
    torch.set_num_threads(threads)
    cases = {name: prepared(name, inputs) for name, inputs in load_inputs(folder).items()}
    # Served: one case per line read, so that the caller times each case right beside its own
    # run of it; otherwise every case once, in the manifest's order.
    names = (line.strip() for line in sys.stdin) if serve else iter(cases)
    if serve:
        # Importing torch and reading the inputs take seconds of processor time: the caller
        # starts timing only once they are done.
        print("ready", flush=True)
    for name in names:
        if not name:
            continue
        seconds, result = timed(name, cases[name], iterations, warmup_seconds)
        write_result(result, os.path.join(folder, name + ".out"))
        print(f"{name}\t{seconds}", flush=True)


if __name__ == "__main__":
    main()
