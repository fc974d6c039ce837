#!/usr/bin/env python3
"""Compile-time benchmarks of the dim algebra: compiler seconds and peak memory over N.

For N in 8, 32, 128 it generates, in a temporary directory,
  sum_N.cpp:  N distinct dynamic tags T0..T<N-1> and
              using S = decltype(T0{} + T1{} + ... + T<N-1>{});
              static_assert(std::is_same_v<S, dimgraph::dim_sum<T0, ..., T<N-1>>>);
  prod_N.cpp: the same with * and dimgraph::dim_prod<...>,
  chain_N.cpp: workload W7, one assignment of a chain of N fused element-wise ops on
              [32, 128, 512] (adds of a broadcast [512] bias, scalings, subtractions of
              the input, a tanh every fifth op): one expression type N levels deep,
plus include.cpp (only #include <dimgraph.hpp>) as the baseline, and compiles each with
`<compiler> -std=c++20 -O2 -c -I include` for g++ and, when present, clang++-16. Each
compile runs under a fresh wrapper process that reports its own children's peak resident
memory (RUSAGE_CHILDREN), so every number belongs to one compile. Prints a table:
compiler, case, N, seconds, peak MiB.

    python3 bench/compile/run.py [--sizes 8 32 128] [--chain-sizes 25 50 100]
                                 [--compilers g++ clang++-16] [--keep]
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INCLUDE_DIR = ROOT / "include"

# Runs the compiler and prints {"status", "seconds", "maxrss_kib"} about that run alone.
WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
seconds = time.perf_counter() - start
maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"status": status, "seconds": seconds, "maxrss_kib": maxrss}))
"""


def tags(n):
    return "\n".join(f'struct T{i} : dimgraph::dim<"t{i}"> {{}};' for i in range(n))


CHAIN_PRELUDE = """#include <dimgraph.hpp>

namespace dg = dimgraph;
struct B : dg::dim<"b", 32> {};
struct T : dg::dim<"t", 128> {};
struct F : dg::dim<"f", 512> {};

void chain(dg::tensor<float, B, T, F>& out, const dg::tensor<float, B, T, F>& x,
           const dg::tensor<float, F>& bias) {
"""


def chain_expression(n):
    e = "x"
    for i in range(n):
        if i % 5 == 4:
            e = f"dg::tanh({e})"
        else:
            e = [f"({e} + bias)", f"({e} * {1 + i / 1000:.3f}f)", f"({e} - x)", f"({e} + bias)"][i % 5]
    return e


def source(kind, n):
    if kind == "include":
        return "#include <dimgraph.hpp>\n"
    if kind == "chain":
        return f"{CHAIN_PRELUDE}  out = {chain_expression(n)};\n}}\n"
    op, form = {"sum": ("+", "dim_sum"), "prod": ("*", "dim_prod")}[kind]
    expression = f" {op} ".join(f"T{i}{{}}" for i in range(n))
    arguments = ", ".join(f"T{i}" for i in range(n))
    return (f"#include <type_traits>\n#include <dimgraph.hpp>\n\n{tags(n)}\n\n"
            f"using S = decltype({expression});\n"
            f"static_assert(std::is_same_v<S, dimgraph::{form}<{arguments}>>);\n")


def measure(compiler, path, workdir):
    command = [compiler, "-std=c++20", "-O2", "-c", f"-I{INCLUDE_DIR}", str(path),
               "-o", str(workdir / (path.stem + ".o"))]
    run = subprocess.run([sys.executable, "-c", WRAPPER, *command], capture_output=True,
                         text=True, check=True)
    result = json.loads(run.stdout.strip().splitlines()[-1])
    if result["status"] != 0:
        # Show why: compile again with diagnostics visible.
        errors = subprocess.run(command, capture_output=True, text=True).stderr
        print("\n".join(errors.splitlines()[:30]), file=sys.stderr)
        return None
    return result["seconds"], result["maxrss_kib"] / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 32, 128])
    parser.add_argument("--chain-sizes", type=int, nargs="+", default=[25, 50, 100])
    parser.add_argument("--compilers", nargs="+", default=["g++", "clang++-16"])
    parser.add_argument("--keep", action="store_true", help="keep and print the source dir")
    args = parser.parse_args()

    compilers = [c for c in args.compilers if shutil.which(c)]
    if not compilers:
        sys.exit("run.py: none of the compilers is installed: " + " ".join(args.compilers))
    cases = ([("include", 0)] + [(kind, n) for kind in ("sum", "prod") for n in args.sizes] +
             [("chain", n) for n in args.chain_sizes])

    workdir = Path(tempfile.mkdtemp(prefix="dimgraph-compile-bench-"))
    failures = 0
    try:
        print(f"{'compiler':<12} {'case':<8} {'N':>5} {'seconds':>9} {'peak MiB':>9}")
        for compiler in compilers:
            for kind, n in cases:
                path = workdir / (f"{kind}_{n}.cpp" if n else f"{kind}.cpp")
                path.write_text(source(kind, n), encoding="utf-8")
                result = measure(compiler, path, workdir)
                if result is None:
                    failures += 1
                    print(f"{compiler:<12} {kind:<8} {n:>5} {'FAILED':>9} {'':>9}")
                else:
                    seconds, mib = result
                    print(f"{compiler:<12} {kind:<8} {n:>5} {seconds:>9.2f} {mib:>9.1f}")
                sys.stdout.flush()
    finally:
        if args.keep:
            print(f"sources kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
