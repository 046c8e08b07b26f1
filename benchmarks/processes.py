"""The Procfile's processes, started for real, and what they cost while a benchmark runs.

Each process runs the command its ``Procfile`` line gives (through ``bash``, so ``${PORT:-8000}``
expands as a process manager would expand it) in a session of its own: stopping it stops its
children too (the binding worker's prefork pool), and nothing else. What a process costs is
read from ``/proc`` (Linux): CPU seconds of the process and its descendants, and their memory.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROCFILE = ROOT / "Procfile"
STOP_SECONDS = 15.0
"""How long a process may take to stop on SIGTERM before it is killed."""


def procfile_commands(path: Path = PROCFILE) -> dict[str, str]:
    """``{name: command}`` of a Procfile (``name: command`` lines; blank and # lines skipped)."""
    commands = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, command = line.partition(":")
        if not sep or not command.strip():
            raise ValueError(f"{path.name} line {number}: expected 'name: command'")
        commands[name.strip()] = command.strip()
    return commands


@dataclass
class Process:
    """One started Procfile process, with its output kept in a file."""

    name: str
    popen: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def tail(self, lines: int = 20) -> str:
        """The end of its output: what to show when something went wrong."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def check_alive(self) -> None:
        code = self.popen.poll()
        if code is not None:
            raise RuntimeError(f"the {self.name} process exited with {code}:\n{self.tail()}")

    def stop(self, seconds: float = STOP_SECONDS) -> float | None:
        """SIGTERM to its session (a warm shutdown), SIGKILL if it takes longer than
        ``seconds``; returns how long it took to exit after SIGTERM (None: it was killed, or
        had exited already)."""
        took = None
        if self.popen.poll() is None:
            _signal_group(self.pid, signal.SIGTERM)
            start = time.monotonic()
            try:
                self.popen.wait(seconds)
                took = time.monotonic() - start
            except subprocess.TimeoutExpired:
                _signal_group(self.pid, signal.SIGKILL)
                self.popen.wait()
        # Pool children outliving their parent still belong to its session.
        _signal_group(self.pid, signal.SIGKILL)
        return took


@contextmanager
def procfile_processes(
    names: list[str], env: Mapping[str, str], procfile: Path = PROCFILE
) -> Iterator[dict[str, Process]]:
    """Starts the named Procfile processes and stops them all on the way out, whatever happens."""
    commands = procfile_commands(procfile)
    missing = [name for name in names if name not in commands]
    if missing:
        raise ValueError(f"{procfile.name} has no process named {', '.join(missing)}")
    with started_processes({name: commands[name] for name in names}, env) as started:
        yield started


@contextmanager
def started_processes(
    commands: Mapping[str, str], env: Mapping[str, str]
) -> Iterator[dict[str, Process]]:
    """Starts ``{name: command}`` (as a Procfile's lines) and stops them all on the way out."""
    started: dict[str, Process] = {}
    logs = tempfile.TemporaryDirectory(prefix="playground-processes-")
    try:
        for name, command in commands.items():
            started[name] = _start(name, command, env, Path(logs.name))
        yield started
    finally:
        for process in started.values():
            process.stop()
        logs.cleanup()


def _start(name: str, command: str, env: Mapping[str, str], logs: Path) -> Process:
    log = logs / f"{name}.log"
    with log.open("wb") as out:
        popen = subprocess.Popen(
            ["bash", "-c", f"exec {command}"],
            cwd=ROOT,
            env={**env, "PATH": _path_with_interpreter(env)},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Process(name, popen, log)


def _path_with_interpreter(env: Mapping[str, str]) -> str:
    """PATH with this interpreter's directory first: ``daphne`` and ``celery`` are its scripts."""
    return os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", os.defpath)])


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)  # the session started with the process: it and its children


# ----------------------------------------------------------------------------------------------
# What processes cost, from /proc


@dataclass(frozen=True, slots=True)
class Usage:
    """CPU seconds so far and resident memory now, of a group of processes."""

    processes: int
    cpu_seconds: float
    rss_mib: float

    def __sub__(self, before: Usage) -> Usage:
        """CPU spent between two readings; processes and memory as of the later one."""
        return Usage(self.processes, self.cpu_seconds - before.cpu_seconds, self.rss_mib)


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def tree_usage(root: int) -> Usage:
    """The process and every descendant of it alive now (0 everywhere without /proc)."""
    table = _process_table()
    family = {root}
    changed = True
    while changed:
        changed = False
        for pid, (ppid, _, _) in table.items():
            if ppid in family and pid not in family:
                family.add(pid)
                changed = True
    return _sum(table, family & set(table))


def matching_usage(words: list[str]) -> Usage:
    """Processes whose command line contains every one of ``words`` (e.g. a database's
    PostgreSQL backends: ``["postgres:", dbname]``)."""
    table = _process_table()
    pids = {pid for pid in table if all(word in _cmdline(pid) for word in words)}
    return _sum(table, pids)


def machine_usage() -> Usage:
    """CPU seconds the whole machine has been busy (every core; 0 without /proc), not counting
    time the hypervisor gave to other guests (``stolen_usage``)."""
    ticks = _cpu_ticks()
    if not ticks:
        return Usage(0, 0.0, 0.0)
    busy = sum(ticks) - ticks[3] - ticks[4] - ticks[7]
    return Usage(0, busy / _TICKS, 0.0)


def stolen_usage() -> Usage:
    """CPU seconds the hypervisor ran other guests while this machine wanted its cores: on a
    shared host this, not our code, is often why one run is slower than the next."""
    ticks = _cpu_ticks()
    return Usage(0, ticks[7] / _TICKS if ticks else 0.0, 0.0)


def _cpu_ticks() -> list[int]:
    """user nice system idle iowait irq softirq steal, summed over the cores ([] without /proc)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return []
    return [int(value) for value in fields[:8]]


def _sum(table: dict[int, tuple[int, int, int]], pids: set[int]) -> Usage:
    ticks = sum(table[pid][1] for pid in pids)
    pages = sum(table[pid][2] for pid in pids)
    return Usage(len(pids), ticks / _TICKS, pages * _PAGE / 2**20)


def _process_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (parent pid, CPU ticks, resident pages) of every process we may read."""
    table = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces: split after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        ticks = int(fields[11]) + int(fields[12])  # user and system time
        table[int(entry.name)] = (int(fields[1]), ticks, int(fields[21]))
    return table


def _cmdline(pid: int) -> str:
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return ""
    return words.decode(errors="replace")
