"""Benchmark: the size history at 10,000 builds (synthetic reports from the fixture ELFs with varied sizes).

Each build starts from one of the fixture reports (Cortex-M4 with its operator table, RV32, x86-64), then every
file's symbols grow or shrink a little (a random walk per file, so flash creeps), and now and then a file gains or
loses a symbol (a step). Builds go to a few series (main and feature branches, two boards). Each record opens the
database and records one build, as `size-report history record` does; the first `--cli` builds are also recorded
through the real command in fresh processes (Python start-up included). Then it times `history show` (newest 20,
and `--limit 0 --format json`) and `history plot -o .html/.svg` over the whole history, and prints the database size
per build. Every figure is wall time and CPU time (user + sys, of the child process for commands): the build machine
is shared, so wall time alone says as much about the neighbours as about the tool; the load average is printed too.

    python benchmarks/bench_history.py [--builds 10000] [--db sizes.db | --db postgresql://...] [--cli 20]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.history.build_info import BuildInfo  # noqa: E402
from sizetool.history.record import record_report  # noqa: E402
from sizetool.history.storage import history_database  # noqa: E402
from sizetool.report.operator_records import OperatorCost  # noqa: E402
from sizetool.report.report_model import SizeEntry, SizeReport, report_to_dict  # noqa: E402

OUT = REPO / "fixtures" / "firmware" / "out"
SERIES = [("main", {"board": "k64"}), ("main", {"board": "nrf52"}), ("feature/dsp", {"board": "k64"}),
          ("release/1.x", {"board": "k64"})]


def base_reports() -> list[SizeReport]:
    from sizetool.operators.graph_cache import operator_table
    from sizetool.report.report_builder import build_report

    reports = []
    for target in ("cortex-m4", "riscv32", "host-x86_64"):
        elf = OUT / target / "firmware.elf"
        report = build_report(str(elf), use_cache=False)
        if target == "cortex-m4":
            report.operators = operator_table(str(elf), report)
        reports.append(report)
    return reports


class Synthesiser:
    """Successive builds of one series: per-file random walks and occasional symbols added or removed."""

    def __init__(self, base: SizeReport, rng: random.Random):
        self.base, self.rng = base, rng
        self.growth: dict[tuple, int] = {}
        self.extra: list[SizeEntry] = []

    def next(self) -> SizeReport:
        rng = self.rng
        files = sorted({(e.memory, e.path) for e in self.base.entries if e.path})
        for key in rng.sample(files, k=min(3, len(files))):
            self.growth[key] = max(-200, self.growth.get(key, 0) + rng.choice((-8, 4, 8, 16, 24)))
        if rng.random() < 0.03:  # a step: a new function or table
            memory, path = rng.choice(files)
            self.extra.append(SizeEntry(memory, path, f"added_{len(self.extra)}", ".text", 0, rng.randint(600, 3000)))
        elif self.extra and rng.random() < 0.01:
            self.extra.pop(rng.randrange(len(self.extra)))
        entries, seen = [], set()
        for entry in self.base.entries:
            key = (entry.memory, entry.path)
            if key in self.growth and key not in seen and entry.size + self.growth[key] > 0:
                seen.add(key)
                entry = replace(entry, size=entry.size + self.growth[key])
            entries.append(entry)
        entries.extend(self.extra)
        totals = {m: sum(e.size for e in entries if e.memory == m) for m in ("rom", "ram")}
        operators = self.base.operators
        if operators is not None:
            shift = totals["rom"] - self.base.rom_total
            first = operators.operators[0]
            operators = replace(operators, total_rom=totals["rom"], operators=[
                OperatorCost(first.op, first.registration, max(0, first.exclusive_bytes + shift // 4),
                             first.shared_bytes, first.files)] + operators.operators[1:])
        return replace(self.base, entries=entries, rom_total=totals["rom"], ram_total=totals["ram"],
                       operators=operators)


def run_timed(command: list[str], **options) -> tuple[subprocess.CompletedProcess, float, float]:
    """(result, wall seconds, CPU seconds of the child: user + sys)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, **options)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return result, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def load() -> str:
    return "load average " + " ".join(f"{value:.1f}" for value in os.getloadavg())


def file_size(db: str) -> int | None:
    return os.path.getsize(db) if "://" not in db else None


def record_history(args, db: str, scratch: str, env: dict) -> None:
    """Fill the database: the first --cli builds through the command in fresh processes, the rest in process."""
    rng = random.Random(args.seed)
    bases = base_reports()
    synthesisers = {index: Synthesiser(bases[0 if index != 1 else 1], rng) for index in range(len(SERIES))}
    start_time = datetime(2023, 1, 1)
    cli_times, cli_cpu = [], []
    for index in range(args.cli):
        series = index % len(SERIES)
        branch, labels = SERIES[series]
        saved = os.path.join(scratch, "build.json")
        Path(saved).write_text(json.dumps(report_to_dict(synthesisers[series].next())))
        command = [sys.executable, "-m", "sizetool.cli", "history", "record", saved, "--db", db, "--commit",
                   f"{index:040x}", "--branch", branch, "--time", (start_time + timedelta(hours=index)).isoformat()]
        command += [f"--label={k}={v}" for k, v in labels.items()]
        _, wall, cpu = run_timed(command, check=True, cwd=REPO, env=env, stdout=subprocess.DEVNULL)
        cli_times.append(wall)
        cli_cpu.append(cpu)
    api_times, api_cpu = [], []
    for index in range(args.cli, args.builds):
        series = index % len(SERIES) if index % 10 else 0  # main/k64 gets the most builds
        branch, labels = SERIES[series]
        report = synthesisers[series].next()
        info = BuildInfo(commit=f"{index:040x}", branch=branch, built_at=start_time + timedelta(hours=index),
                         labels=labels)
        started, cpu_started = time.perf_counter(), time.process_time()
        with history_database(db, create=True) as database:
            record_report(database, report, info, 64)
        api_times.append(time.perf_counter() - started)
        api_cpu.append(time.process_time() - cpu_started)
        if index % 1000 == 0:
            print(f"  {index} builds, last record {api_times[-1] * 1000:.0f} ms", flush=True)
    api_times.sort()
    print(f"after recording: {load()}")
    if cli_times:
        print(f"record via CLI (fresh process each): wall mean {mean(cli_times):.2f} s, "
              f"median {median(cli_times):.2f} s, max {max(cli_times):.2f} s; "
              f"CPU mean {mean(cli_cpu):.2f} s, median {median(cli_cpu):.2f} s over {len(cli_times)} builds")
    print(f"record (open + record, in process): wall mean {mean(api_times) * 1000:.0f} ms, "
          f"median {median(api_times) * 1000:.0f} ms, p99 {api_times[int(len(api_times) * .99)] * 1000:.0f} ms, "
          f"max {api_times[-1] * 1000:.0f} ms; CPU mean {mean(api_cpu) * 1000:.0f} ms over {len(api_times)} builds")


def time_commands(args, db: str, scratch: str, env: dict) -> None:
    """Each reading command over the whole history, --repeat times: the best wall time and the best CPU time."""
    commands = (("show (table, newest 20)", ["show"]),
                ("show --limit 0 --format json", ["show", "--limit", "0", "--format", "json"]),
                ("plot -o flash.html", ["plot", "-o", os.path.join(scratch, "flash.html")]),
                ("plot -o flash.svg (main/k64 only)",
                 ["plot", "--branch", "main", "--label", "board=k64", "-o", os.path.join(scratch, "flash.svg")]))
    for label, extra in commands:
        walls, cpus, note = [], [], ""
        for _ in range(args.repeat):
            result, wall, cpu = run_timed([sys.executable, "-m", "sizetool.cli", "history", *extra, "--db", db],
                                          cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                          text=True)
            if result.returncode != 0:
                note = f" (failed: {result.stderr.strip()[-200:]})"
                break
            walls.append(wall)
            cpus.append(cpu)
        if walls:
            print(f"history {label}: {min(walls):.2f} s wall, {min(cpus):.2f} s CPU (best of {len(walls)}) "
                  f"({load()}){note}")
        else:
            print(f"history {label}:{note}")
    page = os.path.join(scratch, "flash.html")
    if os.path.exists(page):
        print(f"flash.html: {os.path.getsize(page) / 1e6:.1f} MB")


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", type=int, default=10000)
    parser.add_argument("--db", help="database to fill (default: a temporary SQLite file)")
    parser.add_argument("--cli", type=int, default=20, help="builds recorded through the CLI in fresh processes")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each reading command (the best is printed)")
    parser.add_argument("--commands-only", action="store_true",
                        help="time the reading commands on an existing --db (filled by an earlier run) only")
    args = parser.parse_args()
    if args.commands_only and not args.db:
        parser.error("--commands-only needs --db")
    with tempfile.TemporaryDirectory() as scratch:
        db = args.db or os.path.join(scratch, "sizes.db")
        env = dict(os.environ, SIZETOOL_CACHE_DIR=os.path.join(scratch, "cache"))
        print(f"start: {load()}", flush=True)
        if not args.commands_only:
            record_history(args, db, scratch, env)
        time_commands(args, db, scratch, env)
        size = file_size(db)
        if size is not None:
            print(f"database: {size / 1e6:.1f} MB, {size / args.builds / 1024:.1f} KiB per build")


if __name__ == "__main__":
    main()
