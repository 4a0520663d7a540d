"""Turns JAX's CPU export test data (jax/_src/internal_test_util/export_back_compat_test_data/
cpu_*.py in a checkout of jax-ml/jax) into one JSON file that tools/jax-exports/run.R reads.

The data files are Python modules that build numpy arrays; numpy is not needed here: a
stand-in module records each array's values, dtype and shape. Nothing of JAX is written into
this repository; the JSON goes where the caller says (a temporary folder).

usage: python3 extract.py <jax checkout or the data folder> <out.json>
"""
import glob
import json
import math
import os
import sys
import types

DTYPES = {"float32": "f32", "float64": "f64", "complex64": "c64", "complex128": "c128",
          "int32": "i32", "int64": "i64", "bool_": "pred"}


class DType:
    def __init__(self, name):
        self.name = name

    def __call__(self, value):  # np.float32(1.5) as a scalar
        return Array(value, self)


class Array:
    def __init__(self, values, dtype=None):
        if isinstance(values, Array):
            dtype = dtype or values.dtype
            values = values.values
        self.values = values
        self.dtype = dtype.name if isinstance(dtype, DType) else dtype

    def shape(self):
        dims, v = [], self.values
        while isinstance(v, (list, tuple)):
            dims.append(len(v))
            v = v[0] if v else None
        return dims

    def flat(self):
        out = []

        def walk(v):
            if isinstance(v, (list, tuple)):
                for item in v:
                    walk(item)
            else:
                out.append(v)

        walk(self.values)
        return out

    def default_dtype(self):
        flat = self.flat()
        if any(isinstance(x, complex) for x in flat):
            return "complex128"
        if any(isinstance(x, float) for x in flat):
            return "float64"
        return "int64"

    def to_json(self):
        dtype = self.dtype or self.default_dtype()
        flat = self.flat()

        def number(x):
            if isinstance(x, complex):
                return [number(x.real), number(x.imag)]
            if isinstance(x, float) and not math.isfinite(x):
                return str(x)
            return x

        return {"dtype": DTYPES[dtype], "shape": self.shape(), "values": [number(x) for x in flat]}


def numpy_stand_in():
    np = types.ModuleType("numpy")
    np.array = Array
    np.asarray = Array
    np.nan = float("nan")
    np.inf = float("inf")
    for name in DTYPES:
        setattr(np, name, DType(name))
    return np


def cases_of(path):
    sys.modules["numpy"] = numpy_stand_in()
    scope = {"__name__": "jax_export_data"}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), scope)
    base = os.path.basename(path)[:-3]
    for key, value in scope.items():
        if not (key.startswith("data_") and isinstance(value, dict)):
            continue
        for variant, case in value.items():
            if not isinstance(case, dict) or "mlir_module_text" not in case:
                continue
            yield {
                "file": base,
                "dataset": key,
                "variant": variant,
                "targets": case["custom_call_targets"],
                "mlir": case["mlir_module_text"],
                "inputs": [Array(a).to_json() for a in case["inputs"]],
                "expected": [Array(a).to_json() for a in case["expected_outputs"]],
            }


def main():
    root, out = sys.argv[1], sys.argv[2]
    folder = os.path.join(root, "jax/_src/internal_test_util/export_back_compat_test_data")
    if not os.path.isdir(folder):
        folder = root
    cases = [c for p in sorted(glob.glob(os.path.join(folder, "cpu_*.py"))) for c in cases_of(p)]
    with open(out, "w") as f:
        json.dump(cases, f)
    print(f"{len(cases)} cases from {folder} -> {out}")


if __name__ == "__main__":
    main()
