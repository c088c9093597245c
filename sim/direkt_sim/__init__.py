# SPDX-License-Identifier: Apache-2.0
"""direkt-sim: cocotb simulation harness for the Verilog emitted by direkt.

The pytest side of a bench calls :func:`run_bench`; the cocotb side (running
inside the simulator) reads its parameters with :func:`bench_params`.
"""

from .runner import BenchRun, bench_params, regress_scale, run_bench

__all__ = ["BenchRun", "bench_params", "regress_scale", "run_bench"]
