"""The MLP training of bench/peer/training.R in PyTorch eager, on the data and initial
parameters pjrt's run wrote (row-major f32 bytes of buffers made from R arrays).

Per configuration: torch.nn.Sequential of Linear and ReLU layers (weights set to the transposes
of pjrt's `w<l>`), MSELoss and torch.optim.SGD, batch `i mod batches` at step i, exactly the
steps of the pjrt loop program. Prints `name<TAB>seconds per step<TAB>final loss`; the timed run
follows an untimed warm-up run from the same initial parameters. PyTorch is a yardstick here,
never a dependency of pjrt.

usage: /usr/bin/python3 torch_training.py <folder> <steps> <batch> <batches> <lr>
"""
import os
import sys
import time

import torch


def load(path, shape):
    data = bytearray(open(path, "rb").read())
    return torch.frombuffer(data, dtype=torch.float32).reshape(shape)


def model_for(prefix, depth, width):
    layers = []
    for l in range(depth + 1):
        out = width if l < depth else 1
        linear = torch.nn.Linear(width, out)
        with torch.no_grad():
            linear.weight.copy_(load(f"{prefix}-p{2 * l + 1}.bin", (width, out)).t())
            linear.bias.copy_(load(f"{prefix}-p{2 * l + 2}.bin", (out,)))
        layers.append(linear)
        if l < depth:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def train(model, xs, ys, steps, lr):
    optimiser = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = torch.nn.MSELoss()
    for i in range(steps):
        k = i % len(xs)
        optimiser.zero_grad()
        loss = criterion(model(xs[k]), ys[k])
        loss.backward()
        optimiser.step()
    return loss.item()


def main():
    folder, steps, batch, batches, lr = sys.argv[1:6]
    steps, batch, batches, lr = int(steps), int(batch), int(batches), float(lr)
    torch.set_num_threads(1)
    with open(os.path.join(folder, "manifest.tsv")) as manifest:
        for line in manifest:
            name, depth, width, prefix = line.rstrip("\n").split("\t")
            depth, width = int(depth), int(width)
            x = load(f"{prefix}-x.bin", (batch * batches, width))
            y = load(f"{prefix}-y.bin", (batch * batches, 1))
            xs = [x[k * batch:(k + 1) * batch] for k in range(batches)]
            ys = [y[k * batch:(k + 1) * batch] for k in range(batches)]
            train(model_for(prefix, depth, width), xs, ys, steps, lr)
            model = model_for(prefix, depth, width)
            start = time.perf_counter()
            loss = train(model, xs, ys, steps, lr)
            seconds = (time.perf_counter() - start) / steps
            print(f"{name}\t{seconds}\t{loss}", flush=True)


if __name__ == "__main__":
    main()
