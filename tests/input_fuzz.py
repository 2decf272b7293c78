"""Mutated inputs through the real size-report command paths: the engine of tests/sizetool/test_input_fuzz.py (a few
hundred cases) and benchmarks/fuzz_inputs.py (20,000).

Four kinds of input, each mutated from a valid one made from the committed fixtures:
- map: a map mutated as text (bytes flipped, lines dropped, duplicated or swapped, numbers replaced, truncated),
  given to `size-report ELF --map` with its ELF: the Cortex-M4 fixture's GNU ld map, the armlink maps (Arm Compiler
  6.22, 6.21, compressed RW data) and IAR ILINK maps (8, 9 and 7 shapes) of fixtures/toolchain_maps, and the
  ESP-IDF ESP32 and ESP32-C3 layouts;
- budget: a size-budget.toml using every table, with values replaced by nan, inf, negatives, wrong types and wrong
  nesting, or mutated as text, given to `size-report check REPORT.json --budget`;
- report: a saved report JSON with one or more values replaced by another type (a float where a list belongs, a
  string for a size, null, a huge or negative number), keys dropped, or the text mutated, given to `size-report
  diff`, `check` and `history record`;
- history: a size history SQLite database with damaged pages or bytes, truncated, or with single values rewritten
  through SQLite (text that is not UTF-8, JSON that does not parse, a string in a number column, a blob that does not
  inflate), given to `history show|diff|plot|record` and `check --baseline db:`.

Each case runs `sizetool.cli.main` in this process with stdout and stderr captured. An outcome is "ok" (0), "gate"
(1), "input error" (2 with exactly one line on stderr) or a failure: "internal error", "traceback", "not one line"
or "bad status". Everything is drawn from one random.Random(seed), so a run is repeatable.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import sqlite3
import tempfile
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sizetool import cli

REPO = Path(__file__).resolve().parent.parent
FIRMWARE = REPO / "fixtures" / "firmware" / "out" / "cortex-m4"
ELF = FIRMWARE / "firmware.elf"
MAP = FIRMWARE / "firmware.map"
VARIANTS = REPO / "fixtures" / "firmware" / "out" / "variants" / "cortex-m4"
TOOLCHAIN_MAPS = REPO / "fixtures" / "toolchain_maps" / "out"
LAYOUTS = REPO / "fixtures" / "layouts" / "out"
# Map mutations start from a GNU ld map, armlink maps (Arm Compiler 6.22, 6.21, compressed RW data), IAR ILINK maps
# (the 8, 9 and 7 shapes) and ESP-IDF maps (ESP32, ESP32-C3), each given with its own ELF.
MAP_SEEDS = [(ELF, MAP)] + [
    (TOOLCHAIN_MAPS / variant / elf, TOOLCHAIN_MAPS / variant / "firmware.map")
    for variant, elf in (("armlink", "firmware.axf"), ("armlink-6.21", "firmware.axf"),
                         ("armlink-compressed", "firmware.axf"), ("iar", "firmware.out"), ("iar9", "firmware.out"),
                         ("iar7", "firmware.out"))
] + [(LAYOUTS / name / f"{name}.elf", LAYOUTS / name / f"{name}.map") for name in ("esp32-like", "esp32c3-like")]
KINDS = ("map", "budget", "report", "history")
FAILURES = ("internal error", "traceback", "not one line", "bad status")

BUDGET = """\
[rom]
total = "192K"
max_growth = "1%"
[rom.paths]
"kernels/**" = "40K"
"app/*" = 4096
[rom.path_growth]
"kernels/**" = "512"
[rom.operators]
CONV_2D = "8K"
FULLY_CONNECTED = 9000
[ram]
total = "64K"
max_growth = 256
[regions]
FLASH = "95%"
RAM = "48K"
"""

ODD_VALUES = [
    "nan", "inf", "-inf", "+inf", "-1", "-0", "0", "1.5", "1e400", "-1e400", "99999999999999999999999999",
    '"nan%"', '"inf%"', '"-inf%"', '"1e400%"', '"-5%"', '"%"', '""', '"-4K"', '"12Q"', '"1.5K"', '"0x10"', '" 7 "',
    "[1, 2]", "[]", "{a = 1}", "{}", "true", "false", "1979-05-27", "07:32:00", '"\\u0000"', "'''x'''",
    '"95%"', '"100%"', '"0"', '"1G"', '"999999999G"',
]
ODD_TABLES = ["[rom.paths.x]", "[[rom]]", "[rom.total]", "[regions.FLASH]", "[models]", "[rom.operators.CONV_2D]",
              "[ram.operators]", "[unknown]", "[rom.paths]\n\"**\" = {x = 1}", "rom = 5", "[models]\n\"x.tflite\" = 1"]
ODD_JSON = [None, True, False, 0, -1, -(2 ** 70), 2 ** 70, 1.5, -0.0, float("nan"), float("inf"), "", "x", "12",
            "\x00", [], [1], ["a"], [[1, 2]], {}, {"x": 1}, {"name": None}, [{}], [None]]
ODD_SQL = ["NULL", "-1", "0", "1.5", "'x'", "''", "X''", "X'00ff'", "CAST(X'ff80fe' AS TEXT)",
           "CAST(X'c3' AS TEXT)", "'{'", "'[1,2]'", "'{\"rom\": 5}'", "'{\"rom\": {\"a\": \"b\"}}'", "'not a time'",
           "'2024-13-45 99:99:99'", "9223372036854775807", "-9223372036854775808", "X'789c'", "'null'", "'[]'",
           "'{\"a\": 1}'", "1e308"]


@dataclass
class Outcome:
    kind: str
    command: str
    status: int
    label: str
    stderr: str


@dataclass
class FuzzRun:
    outcomes: list[Outcome] = field(default_factory=list)

    def counts(self) -> dict[str, Counter]:
        out: dict[str, Counter] = {kind: Counter() for kind in KINDS}
        for outcome in self.outcomes:
            out[outcome.kind][outcome.label] += 1
        return out

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.label in FAILURES]


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """sizetool.cli.main in this process: (status, stdout, stderr); an escaping exception is a traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(argv)
        except SystemExit as exit_request:
            status = exit_request.code if isinstance(exit_request.code, int) else -1
        except BaseException:  # noqa: BLE001 - the point is to see it
            err.write(traceback.format_exc())
            status = -2
    return status, out.getvalue(), err.getvalue()


def classify(status: int, stderr: str) -> str:
    if "Traceback (most recent call last)" in stderr or status == -2:
        return "traceback"
    if "internal error" in stderr:
        return "internal error"
    if status == 0:
        return "ok"
    if status == 1:
        return "gate"
    if status == 2:
        return "input error" if stderr.count("\n") == 1 and stderr.endswith("\n") else "not one line"
    return "bad status"


# --- mutations ---------------------------------------------------------------------------------------------------------


def mutate_bytes(rng: random.Random, data: bytes, rounds: int | None = None) -> bytes:
    buf = bytearray(data)
    for _ in range(rounds or rng.randint(1, 4)):
        if not buf:
            break
        choice = rng.random()
        at = rng.randrange(len(buf))
        if choice < 0.3:
            buf[at] = rng.randrange(256)
        elif choice < 0.45:
            del buf[at:at + rng.randint(1, 64)]
        elif choice < 0.6:
            end = min(len(buf), at + rng.randint(1, 200))
            buf[at:at] = buf[at:end]
        elif choice < 0.7:
            del buf[at:]
        elif choice < 0.8:
            buf[at:at] = rng.choice([b"\xff\xfe", b"\x00", b"\n", b"[", b"{", b"\"", b"-", b"0x", b"%", b"9" * 30])
        else:
            buf[at] ^= 1 << rng.randrange(8)
    return bytes(buf)


def mutate_lines(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        at = rng.randrange(len(lines))
        choice = rng.random()
        if choice < 0.25:
            del lines[at]
        elif choice < 0.45:
            lines.insert(at, lines[rng.randrange(len(lines))])
        elif choice < 0.6:
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        else:  # replace one number or word in the line
            tokens = list(re.finditer(r"0x[0-9a-fA-F]+|\d+|[A-Za-z_.]+", lines[at]))
            if tokens:
                token = rng.choice(tokens)
                replacement = rng.choice(["0", "-1", "0xffffffffffffffff", "0x", "99999999999999999999", "x",
                                          "", "nan", str(rng.randrange(1 << 32)), hex(rng.randrange(1 << 32))])
                lines[at] = lines[at][:token.start()] + replacement + lines[at][token.end():]
    return "\n".join(lines)


def mutate_map(rng: random.Random, text: bytes) -> bytes:
    if rng.random() < 0.5:
        return mutate_bytes(rng, text)
    return mutate_lines(rng, text.decode("utf-8", "replace")).encode("utf-8")


def mutate_budget(rng: random.Random) -> bytes:
    choice = rng.random()
    if choice < 0.2:
        return mutate_bytes(rng, BUDGET.encode())
    lines = BUDGET.split("\n")
    value_lines = [i for i, line in enumerate(lines) if "=" in line]
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.75:
            at = rng.choice(value_lines)
            key = lines[at].split("=", 1)[0]
            lines[at] = f"{key}= {rng.choice(ODD_VALUES)}"
        else:
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(ODD_TABLES))
    return "\n".join(lines).encode()


def json_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from json_paths(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value[:6]):
            yield from json_paths(child, path + (index,))


def mutate_report(rng: random.Random, data: dict) -> bytes:
    if rng.random() < 0.15:
        return mutate_bytes(rng, json.dumps(data).encode())
    data = json.loads(json.dumps(data))
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in json_paths(data) if p]
        path = rng.choice(paths)
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and rng.random() < 0.25:
            del parent[path[-1]]
        else:
            odd = rng.choice(ODD_JSON)
            parent[path[-1]] = json.loads(json.dumps(odd)) if not isinstance(odd, float) or odd == odd else odd
    return json.dumps(data, allow_nan=True).encode()


SQL_COLUMNS = {
    "size_builds": ["commit_sha", "branch", "labels", "built_at", "recorded_at", "source", "arch", "tool", "build_url",
                    "rom_total", "ram_total", "min_symbol", "base_id", "parts", "parts_depth2", "changes", "id"],
    "size_build_reports": ["report", "build_id"],
    "size_history_meta": ["value", "key"],
    "size_history_version": ["version_num"],
}


def mutate_database(rng: random.Random, source: Path, target: Path) -> None:
    shutil.copyfile(source, target)
    choice = rng.random()
    if choice < 0.5:  # a value rewritten through SQLite: the file stays valid, the row does not
        connection = sqlite3.connect(target)
        try:
            for _ in range(rng.randint(1, 2)):
                table = rng.choice(list(SQL_COLUMNS))
                column = rng.choice(SQL_COLUMNS[table])
                rowids = [row[0] for row in connection.execute(f"SELECT rowid FROM {table}")]
                if rowids:
                    connection.execute(f"UPDATE {table} SET {column} = {rng.choice(ODD_SQL)} WHERE rowid = ?",
                                       (rng.choice(rowids),))
            connection.commit()
        except sqlite3.Error:
            pass  # a constraint refused the value: the database keeps its row
        finally:
            connection.close()
        return
    data = bytearray(target.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    if choice < 0.85:  # damaged pages: random bytes inside a page, or a page zeroed
        for _ in range(rng.randint(1, 4)):
            start = rng.randrange(len(data) // page) * page
            if rng.random() < 0.3:
                data[start + (100 if start == 0 else 0):start + page] = bytes(page - (100 if start == 0 else 0))
            else:
                for _ in range(rng.randint(1, 16)):
                    data[start + rng.randrange(page)] = rng.randrange(256)
    elif choice < 0.95:
        del data[rng.randrange(100, len(data)):]
    else:
        data = bytearray(mutate_bytes(rng, bytes(data[:100]), 2)) + data[100:]
    target.write_bytes(bytes(data))


# --- the corpus and the cases ------------------------------------------------------------------------------------------


@dataclass
class Corpus:
    directory: Path
    report: Path  # a saved report with an operator table
    report_data: dict
    old_report: Path  # a saved report of another build (for diff)
    database: Path
    budget: Path
    maps: list[tuple[Path, bytes]]  # (ELF, its map's text): the seeds map mutations start from


def make_corpus(directory: Path) -> Corpus:
    directory.mkdir(parents=True, exist_ok=True)
    report, old = directory / "report.json", directory / "old.json"
    _must(["--ops", str(ELF), "--map", str(MAP), "--save", str(report), "-o", str(directory / "tree.txt")])
    _must([str(VARIANTS / "without_ADD.elf"), "--save", str(old), "-o", str(directory / "old.txt")])
    database = directory / "sizes.db"
    for day, (elf, commit) in enumerate([(VARIANTS / "without_ADD.elf", "a1"), (VARIANTS / "without_MUL.elf", "a2"),
                                         (ELF, "a3")], start=1):
        _must(["history", "record", str(elf), "--ops", "--db", str(database), "--commit", f"{commit:0<40}",
               "--branch", "main", "--time", f"2024-01-0{day}"])
    budget = directory / "budget.toml"
    budget.write_text(BUDGET)
    return Corpus(directory, report, json.loads(report.read_text()), old, database, budget,
                  [(elf, map_path.read_bytes()) for elf, map_path in MAP_SEEDS])


def _must(argv: list[str]) -> None:
    status, _, err = run_cli(argv)
    if status != 0:
        raise RuntimeError(f"size-report {' '.join(argv)}: status {status}: {err}")


def cases(corpus: Corpus, rng: random.Random, kind: str, work: Path):
    """One mutated input of `kind` and the command lines that read it (each yields (command name, argv))."""
    if kind == "map":
        elf, text = rng.choice(corpus.maps)
        path = work / "mutated.map"
        path.write_bytes(mutate_map(rng, text))
        yield "report --map", [str(elf), "--map", str(path), "--no-cache", "-o", str(work / "out.txt")]
    elif kind == "budget":
        path = work / "budget.toml"
        path.write_bytes(mutate_budget(rng))
        yield "check --budget", ["check", str(corpus.report), "--budget", str(path), "--baseline",
                                 str(corpus.old_report), "--format", rng.choice(["tree", "json", "markdown"])]
    elif kind == "report":
        path = work / "mutated.json"
        path.write_bytes(mutate_report(rng, corpus.report_data))
        command = rng.choice(["diff", "check", "baseline", "record"])
        if command == "diff":
            yield "diff", ["diff", str(corpus.old_report), str(path), "--format",
                           rng.choice(["tree", "json", "csv", "markdown"]), "-o", str(work / "diff.txt")]
        elif command == "check":
            yield "check", ["check", str(path), "--budget", str(corpus.budget), "--baseline", str(corpus.old_report)]
        elif command == "baseline":
            yield "check --baseline", ["check", str(corpus.report), "--budget", str(corpus.budget), "--baseline",
                                       str(path)]
        else:
            database = work / "record.db"
            shutil.copyfile(corpus.database, database)
            yield "history record", ["history", "record", str(path), "--db", str(database), "--commit", "b" * 40,
                                     "--branch", "feature", "--time", "2024-02-01"]
    else:
        database = work / "mutated.db"
        mutate_database(rng, corpus.database, database)
        command = rng.choice(["show", "show all", "diff", "plot", "record", "baseline"])
        if command == "show":
            yield "history show", ["history", "show", "--db", str(database), "-f", rng.choice(["table", "json",
                                                                                              "csv", "markdown"])]
        elif command == "show all":
            yield "history show --limit 0", ["history", "show", "--db", str(database), "--limit", "0"]
        elif command == "diff":
            yield "history diff", ["history", "diff", "main~2", "main", "--db", str(database)]
        elif command == "plot":
            yield "history plot", ["history", "plot", "--db", str(database), "-o", str(work / "plot.html")]
        elif command == "record":
            yield "history record", ["history", "record", str(corpus.report), "--db", str(database), "--commit",
                                     "c" * 40, "--branch", "main", "--time", "2024-01-09"]
        else:
            yield "check --baseline db:", ["check", str(corpus.report), "--budget", str(corpus.budget),
                                           "--baseline", f"db:{database}@main"]


def run_fuzz(seed: int, per_kind: dict[str, int], directory: Path | None = None, progress=None) -> FuzzRun:
    """per_kind: how many mutated inputs of each kind. Runs with the report cache off (every case is analysed)."""
    owned = directory is None
    directory = Path(tempfile.mkdtemp(prefix="sizetool-fuzz-")) if owned else directory
    saved_env = {name: os.environ.get(name) for name in ("SIZETOOL_NO_CACHE", "SIZETOOL_DEBUG", "SIZETOOL_CACHE_DIR")}
    os.environ["SIZETOOL_CACHE_DIR"] = str(directory / "cache")
    os.environ.pop("SIZETOOL_DEBUG", None)
    try:
        corpus = make_corpus(directory / "corpus")
        os.environ["SIZETOOL_NO_CACHE"] = "1"
        rng = random.Random(seed)
        run = FuzzRun()
        work = directory / "work"
        for kind in KINDS:
            for index in range(per_kind.get(kind, 0)):
                if work.exists():
                    shutil.rmtree(work)
                work.mkdir()
                for command, argv in cases(corpus, rng, kind, work):
                    status, _, err = run_cli(argv)
                    run.outcomes.append(Outcome(kind, command, status, classify(status, err), err))
                if progress:
                    progress(kind, index)
        return run
    finally:
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if owned:
            shutil.rmtree(directory, ignore_errors=True)
