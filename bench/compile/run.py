#!/usr/bin/env python3
"""Compile-time benchmarks: compiler seconds and peak memory over growing N, against Eigen.

Generates, in a temporary directory, one source per case and N:
  include     only #include <dimgraph.hpp>: the baseline.
  sum, prod   the dim algebra: N distinct dynamic tags T0..T<N-1> and
              using S = decltype(T0{} + T1{} + ... + T<N-1>{});
              static_assert(std::is_same_v<S, dimgraph::dim_sum<T0, ..., T<N-1>>>);
              (prod: the same with * and dim_prod).
  chain       one tensor [32, 128, 512] (all static) and a bias [512]: N fused ops (adds of
              the bias, scalings, subtractions of the input, a tanh every fifth op).
  w7          workload W7: one assignment of a chain of N fused element-wise ops over 5
              distinct tensors a, b, c, d, e of [B, T, F], B and T known at run time only,
              F = 512 static. The chain starts from a and repeats ten ops,
                + a, * b, - c, * 0.5, + d, * e, - b, * 0.5, + e, * 0.75
              (the ops of bench/runtime/chain.cpp): one expression N levels deep.
  w7_static   the same with B = 32 and T = 128 static.
  w7_eigen    the same chain in Eigen's Tensor module: TensorMap<Tensor<float, 3, RowMajor>>
              views of the 5 inputs and the output, `out = <chain>;` (default device).
and compiles each with `<compiler> -std=c++20 -O<level> [--flags] -c` for each compiler and level
(default g++ and clang++-16 when installed, -O2 and -O3). Each compile runs under a fresh
wrapper process that reports its own children's peak resident memory (RUSAGE_CHILDREN), so
every number belongs to one compile; a compile that runs past --timeout seconds is stopped
and reported as such. Prints one row per compile (compiler, level, case, N, seconds, peak
MiB) as it goes, then per compiler, level and N the ratios w7 / w7_eigen and
w7_static / w7_eigen (seconds and memory) and, when N = 100 and 1000 were both compiled,
the growth of w7 from 100 to 1000.

    python3 bench/compile/run.py                          # everything but N = 1000
    python3 bench/compile/run.py --w7-sizes 25 50 100 200 1000 --cases w7 w7_eigen
    python3 bench/compile/run.py --with-1000 --compilers g++ --levels O2
    python3 bench/compile/run.py --cases w7 w7_eigen --w7-sizes 100 1000 --flags=-ftemplate-depth=2000
    python3 bench/compile/run.py [--sizes 8 32 128] [--chain-sizes 25 50 100] [--keep]
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
ALL_CASES = ["include", "sum", "prod", "chain", "w7", "w7_static", "w7_eigen"]

# Runs the compiler in a session of its own and prints {"status", "seconds", "maxrss_kib"}
# about that run alone; past the timeout (argv[1] seconds) it kills that session.
WRAPPER = """
import json, os, resource, signal, subprocess, sys, time
timeout = float(sys.argv[1])
start = time.perf_counter()
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, start_new_session=True)
try:
    status = child.wait(timeout=timeout)
except subprocess.TimeoutExpired:
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    status = "timeout"
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


# W7's ten ops, in the order bench/runtime/chain.cpp applies them.
W7_OPS = ["({} + a)", "({} * b)", "({} - c)", "({} * 0.5f)", "({} + d)", "({} * e)", "({} - b)",
          "({} * 0.5f)", "({} + e)", "({} * 0.75f)"]


def w7_expression(n):
    e = "a"
    for i in range(n):
        e = W7_OPS[i % 10].format(e)
    return e


W7_DIMGRAPH = """#include <dimgraph.hpp>

namespace dg = dimgraph;
struct B : dg::dim<"b"{b}> {{}};
struct T : dg::dim<"t"{t}> {{}};
struct F : dg::dim<"f", 512> {{}};
using btf = dg::tensor<float, B, T, F>;

void chain(btf& out, const btf& a, const btf& b, const btf& c, const btf& d, const btf& e) {{
  out = {expression};
}}
"""

W7_EIGEN = """#include <unsupported/Eigen/CXX11/Tensor>

using tensor3 = Eigen::TensorMap<Eigen::Tensor<float, 3, Eigen::RowMajor>>;
using const_tensor3 = Eigen::TensorMap<Eigen::Tensor<const float, 3, Eigen::RowMajor>>;

void chain(float* out_, const float* a_, const float* b_, const float* c_, const float* d_,
           const float* e_, Eigen::Index nb, Eigen::Index nt) {{
  const const_tensor3 a(a_, nb, nt, 512), b(b_, nb, nt, 512), c(c_, nb, nt, 512),
      d(d_, nb, nt, 512), e(e_, nb, nt, 512);
  tensor3 out(out_, nb, nt, 512);
  out = {expression};
}}
"""


def source(kind, n):
    if kind == "include":
        return "#include <dimgraph.hpp>\n"
    if kind == "chain":
        return f"{CHAIN_PRELUDE}  out = {chain_expression(n)};\n}}\n"
    if kind == "w7":
        return W7_DIMGRAPH.format(b="", t="", expression=w7_expression(n))
    if kind == "w7_static":
        return W7_DIMGRAPH.format(b=", 32", t=", 128", expression=w7_expression(n))
    if kind == "w7_eigen":
        return W7_EIGEN.format(expression=w7_expression(n))
    op, form = {"sum": ("+", "dim_sum"), "prod": ("*", "dim_prod")}[kind]
    expression = f" {op} ".join(f"T{i}{{}}" for i in range(n))
    arguments = ", ".join(f"T{i}" for i in range(n))
    return (f"#include <type_traits>\n#include <dimgraph.hpp>\n\n{tags(n)}\n\n"
            f"using S = decltype({expression});\n"
            f"static_assert(std::is_same_v<S, dimgraph::{form}<{arguments}>>);\n")


def measure(compiler, level, path, workdir, include_dirs, flags, timeout):
    command = [compiler, "-std=c++20", f"-{level}", *flags, "-c",
               *(f"-I{d}" for d in include_dirs), str(path), "-o", str(workdir / (path.stem + ".o"))]
    run = subprocess.run([sys.executable, "-c", WRAPPER, str(timeout), *command],
                         capture_output=True, text=True, check=True)
    result = json.loads(run.stdout.strip().splitlines()[-1])
    if result["status"] == "timeout":
        return "TIMEOUT", result["seconds"], result["maxrss_kib"] / 1024.0
    if result["status"] != 0:
        # Show why: compile again, print its first errors (their lines cut: a type N ops deep
        # spells out N nested types).
        errors = subprocess.run(command, capture_output=True, text=True).stderr.splitlines()
        first = [line for line in errors if "error" in line][:3] or errors[:3]
        print("\n".join(line[:400] for line in first), file=sys.stderr)
        return "FAILED", result["seconds"], result["maxrss_kib"] / 1024.0
    return "ok", result["seconds"], result["maxrss_kib"] / 1024.0


def sizes_of(kind, args):
    if kind == "include":
        return [0]
    if kind in ("sum", "prod"):
        return args.sizes
    if kind == "chain":
        return args.chain_sizes
    return args.w7_sizes + ([1000] if args.with_1000 and 1000 not in args.w7_sizes else [])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 32, 128],
                        help="N of the sum and prod cases")
    parser.add_argument("--chain-sizes", type=int, nargs="+", default=[25, 50, 100],
                        help="N of the chain case")
    parser.add_argument("--w7-sizes", type=int, nargs="+", default=[25, 50, 100, 200],
                        help="N of the w7, w7_static and w7_eigen cases")
    parser.add_argument("--with-1000", action="store_true", help="also N = 1000 for the w7 cases")
    parser.add_argument("--cases", nargs="+", choices=ALL_CASES, default=ALL_CASES)
    parser.add_argument("--compilers", nargs="+", default=["g++", "clang++-16"])
    parser.add_argument("--levels", nargs="+", default=["O2", "O3"],
                        help="optimisation levels, without the dash")
    parser.add_argument("--flags", nargs="+", default=[], metavar="FLAG",
                        help="more compiler flags for every compile, e.g. "
                        "--flags=-ftemplate-depth=2000 (N = 1000 needs it with GCC's default "
                        "limit of 900 when the chain's type nests N deep)")
    parser.add_argument("--eigen-include", default="/usr/include/eigen3",
                        help="where Eigen's headers are (w7_eigen is skipped without them)")
    parser.add_argument("--timeout", type=float, default=1200,
                        help="seconds after which one compile is stopped (default 1200)")
    parser.add_argument("--keep", action="store_true", help="keep and print the source dir")
    args = parser.parse_args()

    compilers = [c for c in args.compilers if shutil.which(c)]
    if not compilers:
        sys.exit("run.py: none of the compilers is installed: " + " ".join(args.compilers))
    cases = list(args.cases)
    eigen_found = (Path(args.eigen_include) / "unsupported/Eigen/CXX11/Tensor").exists()
    if "w7_eigen" in cases and not eigen_found:
        print(f"run.py: no Eigen Tensor module under {args.eigen_include}; w7_eigen skipped",
              file=sys.stderr)
        cases.remove("w7_eigen")

    workdir = Path(tempfile.mkdtemp(prefix="dimgraph-compile-bench-"))
    results = {}  # (compiler, level, kind, n) -> (seconds, mib) of a compile that succeeded
    failures = 0
    try:
        print(f"{'compiler':<12} {'level':<5} {'case':<10} {'N':>5} {'seconds':>9} "
              f"{'peak MiB':>9}", flush=True)
        for compiler in compilers:
            for level in args.levels:
                for kind in cases:
                    for n in sizes_of(kind, args):
                        path = workdir / (f"{kind}_{n}.cpp" if n else f"{kind}.cpp")
                        path.write_text(source(kind, n), encoding="utf-8")
                        include_dirs = ([args.eigen_include] if kind == "w7_eigen"
                                        else [INCLUDE_DIR])
                        status, seconds, mib = measure(compiler, level, path, workdir,
                                                       include_dirs, args.flags, args.timeout)
                        row = f"{compiler:<12} {level:<5} {kind:<10} {n:>5} "
                        if status == "ok":
                            results[(compiler, level, kind, n)] = (seconds, mib)
                            print(row + f"{seconds:>9.2f} {mib:>9.1f}", flush=True)
                        else:
                            failures += 1
                            # A stopped compiler's memory is not known (never waited for).
                            memory = f"{mib:>9.1f}" if status == "FAILED" else f"{'-':>9}"
                            print(row + f"{status:>9} {memory}  (after {seconds:.0f} s)",
                                  flush=True)
    finally:
        if args.keep:
            print(f"sources kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    print_ratios(results)
    return 1 if failures else 0


def print_ratios(results):
    """dimgraph / Eigen on the same chain, and the growth of w7 from N = 100 to 1000."""
    rows = []
    for (compiler, level, kind, n), (seconds, mib) in sorted(results.items()):
        if kind not in ("w7", "w7_static"):
            continue
        eigen = results.get((compiler, level, "w7_eigen", n))
        if eigen:
            rows.append(f"{compiler:<12} {level:<5} {kind + ' / w7_eigen':<20} {n:>5} "
                        f"{seconds / eigen[0]:>9.2f} {mib / eigen[1]:>9.2f}")
    if rows:
        print()
        print(f"{'compiler':<12} {'level':<5} {'ratio':<20} {'N':>5} {'seconds':>9} "
              f"{'peak mem':>9}")
        print("\n".join(rows))
    for (compiler, level, kind, n), (seconds, mib) in sorted(results.items()):
        big = results.get((compiler, level, kind, 1000))
        if n == 100 and kind.startswith("w7") and big:
            print(f"{compiler} -{level} {kind}: N 100 -> 1000 takes {big[0] / seconds:.1f}x the "
                  f"seconds and {big[1] / mib:.1f}x the peak memory ({big[1]:.0f} MiB)")


if __name__ == "__main__":
    sys.exit(main())
