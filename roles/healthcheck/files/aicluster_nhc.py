"""aicluster-nhc: node health check for Slurm GPU compute nodes.

Installed as /usr/local/lib/aicluster/aicluster_nhc.py behind the wrapper
/usr/local/sbin/aicluster-nhc and run as root by slurmd (HealthCheckProgram)
and optionally as a Slurm Prolog. It runs the checks named in a JSON config
(/etc/aicluster/nhc.json, written by Ansible): GPU device
files, nvidia-smi/npu-smi, new NVIDIA XIDs in the kernel log, InfiniBand port
state and rate, free disk space, memory, munge, clock sync, and the loaded
NVIDIA module and its pinned packages at the driver's version, and the NPUs'
RoCE links.

Every check runs in its own forked child with a hard timeout, all of them at
once, so a hung nvidia-smi or NFS mount can't hang slurmd.

Modes:
  health (default)  drain the node with Reason "nhc: <check>: <detail>" when a
                    check fails, and resume it once all checks pass, but only
                    if this program drained it. XID failures drain with
                    "nhc! ..." and are never resumed automatically: an operator
                    has to look at the GPU. Nodes drained by anyone else are
                    left alone.
  prolog            no scontrol; exit 1 with the reason on stderr when a check
                    fails (slurmd then drains the node and requeues the job).
  report            no scontrol; print one line per check, then a JSON summary;
                    exit 1 when a check failed.

Wall time is bounded by max(check timeouts) + 1 s for the checks, plus
2 x (timeout + 1 s) for scontrol in health mode (one "show node", at most one
"update").

Exit codes: 0 ok (health: after acting), 1 check failed (prolog/report) or
scontrol failed (health), 2 config error.
"""

import argparse
import contextlib
import dataclasses
import hashlib
import json
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

PROG = "aicluster-nhc"
DEFAULT_CONFIG = "/etc/aicluster/nhc.json"
SOFT_PREFIX = "nhc: "  # drains this program may undo
STICKY_PREFIX = "nhc! "  # drains only an operator undoes
REASON_MAX = 120
MIB = 1024 * 1024
KILL_GRACE = 1.0  # seconds to wait for a SIGKILLed process to go away
XID_STATE = "xid.json"
XID_SEEN_MAX = 4096
XID_RE = re.compile(r"NVRM: Xid \(([^)]*)\): (\d+)")


class ConfigError(Exception):
    """The config file is unreadable or invalid; the message names the key."""


class CheckFailed(Exception):
    """A check failed; the message is the detail."""


class SlurmError(Exception):
    """scontrol failed, so the node's state could not be read or changed."""


@dataclasses.dataclass
class Result:
    ok: bool
    detail: str = ""
    sticky: bool = False  # drain with STICKY_PREFIX, never auto-resume
    state: list | None = None  # xid: line hashes to save once the result has been acted on
    seconds: float = 0.0


# ---------------------------------------------------------------- config


def _string(value):
    if not isinstance(value, str) or not value:
        raise ValueError("expected a non-empty string")
    return value


def _strings(value):
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ValueError("expected a list of non-empty strings")
    return value


def _command(value):
    if not _strings(value):
        raise ValueError("expected a non-empty list of strings")
    return value


def _bool(value):
    if not isinstance(value, bool):
        raise ValueError("expected true or false")
    return value


def _is_number(value):
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value):
    if not _is_number(value) or value < 0:
        raise ValueError("expected a non-negative number")
    return value


def _positive(value):
    if not _is_number(value) or value <= 0:
        raise ValueError("expected a positive number")
    return value


def _count(value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError("expected a non-negative integer")
    return value


def _codes(value):
    if not isinstance(value, list) or not all(isinstance(item, int) and not isinstance(item, bool) for item in value):
        raise ValueError("expected a list of integers")
    return value


def _regex(value):
    _string(value)
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"invalid regular expression ({exc})") from exc
    return value


def _thresholds(value):
    if not isinstance(value, dict) or not all(_is_number(mib) and mib >= 0 for mib in value.values()):
        raise ValueError("expected an object of path: MiB (non-negative numbers)")
    return value


def _object(value):
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    return value


REQUIRED = object()

TOP_OPTIONS = {
    "node": (_string, None),  # None: this host's short name
    "timeout": (_positive, 10),
    "state_dir": (_string, "/var/lib/aicluster-nhc"),
    "scontrol": (_string, "scontrol"),
    "checks": (_object, {}),
}

# Option validators and defaults per check; every check also takes "timeout".
CHECK_OPTIONS = {
    "gres_devices": {"files": (_strings, REQUIRED)},
    "smi": {"command": (_command, ["nvidia-smi", "-L"]), "expect_count": (_count, None), "count_regex": (_regex, "^GPU [0-9]+:")},
    "xid": {"command": (_command, ["dmesg", "--kernel", "--time-format", "iso"]), "ignore": (_codes, [])},
    "ib_ports": {"sysfs": (_string, "/sys/class/infiniband"), "rate_gbps": (_number, None), "hcas": (_strings, None)},
    "memory": {"real_memory_mb": (_number, REQUIRED), "meminfo": (_string, "/proc/meminfo")},
    "disk_free": {"paths": (_thresholds, REQUIRED)},
    "munge": {"command": (_command, ["sh", "-c", "munge -n | unmunge"])},
    "clock": {"command": (_command, ["timedatectl", "show", "--property=NTPSynchronized", "--value"]), "expect": (_string, "yes")},
    "npu_links": {"command": (_command, ["/usr/local/Ascend/driver/tools/hccn_tool"]), "devices": (_codes, REQUIRED)},
    "driver": {
        "version": (_string, REQUIRED),
        "packages": (_strings, []),
        "module": (_string, "/sys/module/nvidia/version"),
        "gdr": (_bool, False),
        "sysfs": (_string, "/sys"),
        "command": (_command, ["dpkg-query", "-W", "-f", "${Package}|${Version}|${db:Status-Abbrev}\n"]),
    },
}


def _apply(options, raw, where):
    """Validate raw against options and fill in defaults; where is the key path for messages."""
    unknown = sorted(set(raw) - set(options))
    if unknown:
        raise ConfigError(f"{where}{unknown[0]}: unknown key (known: {', '.join(sorted(options))})")
    values = {}
    for key, (validate, default) in options.items():
        if key not in raw:
            if default is REQUIRED:
                raise ConfigError(f"{where}{key}: required key missing")
            values[key] = default
            continue
        try:
            values[key] = validate(raw[key])
        except ValueError as exc:
            raise ConfigError(f"{where}{key}: {exc}, got {raw[key]!r}") from None
    return values


def parse_config(raw):
    """Return the validated config with defaults filled in; checks ordered as CHECK_OPTIONS."""
    if not isinstance(raw, dict):
        raise ConfigError(f"top level: expected a JSON object, got {raw!r}")
    config = _apply(TOP_OPTIONS, raw, "")
    unknown = sorted(set(config["checks"]) - set(CHECK_OPTIONS))
    if unknown:
        raise ConfigError(f"checks.{unknown[0]}: unknown check (known: {', '.join(CHECK_OPTIONS)})")
    checks = {}
    for name, options in CHECK_OPTIONS.items():
        if name in config["checks"]:
            spec = config["checks"][name]
            if not isinstance(spec, dict):
                raise ConfigError(f"checks.{name}: expected a JSON object, got {spec!r}")
            checks[name] = _apply({**options, "timeout": (_positive, config["timeout"])}, spec, f"checks.{name}.")
    config["checks"] = checks
    config["node"] = config["node"] or socket.gethostname().split(".")[0]
    return config


def load_config(path):
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path}: invalid JSON: {exc}") from None
    return parse_config(raw)


# ---------------------------------------------------------------- helpers


def _summarize(items, limit=3):
    """'a, b, c (+2 more)': keeps details (and so drain reasons) short."""
    shown = ", ".join(items[:limit])
    return f"{shown} (+{len(items) - limit} more)" if len(items) > limit else shown


def _num(value):
    """1024 -> '1024', 0.5 -> '0.5' (format 'g' would print 2e+06 for a 2 TiB node)."""
    return str(int(value)) if float(value).is_integer() else str(value)


def _verdict(problems):
    return Result(False, _summarize(problems)) if problems else Result(True)


def _first_line(*texts):
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                return line.strip()
    return ""


def run_command(argv):
    """Run a check's command. It stays in the check's process group, which the parent kills on timeout."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL, check=False)
    except OSError as exc:
        raise CheckFailed(f"{argv[0]}: {exc.strerror}") from None


def _succeeded(proc):
    """Return proc, or fail with its exit code and first line of output (nvidia-smi writes errors to stdout)."""
    if proc.returncode != 0:
        line = _first_line(proc.stderr, proc.stdout)
        raise CheckFailed(f"exit {proc.returncode}: {line}" if line else f"exit {proc.returncode}")
    return proc


# ---------------------------------------------------------------- checks


def check_gres_devices(spec, config):
    missing, wrong = [], []
    for path in spec["files"]:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            missing.append(path)
            continue
        if not stat.S_ISCHR(mode):
            wrong.append(path)
    problems = []
    if missing:
        problems.append(f"{_summarize(missing)} missing")
    if wrong:
        problems.append(f"{_summarize(wrong)} not a character device")
    return Result(False, "; ".join(problems)) if problems else Result(True)


def check_smi(spec, config):
    proc = _succeeded(run_command(spec["command"]))
    expected = spec["expect_count"]
    if expected is None:
        return Result(True)
    pattern = re.compile(spec["count_regex"])
    answered = sum(1 for line in proc.stdout.splitlines() if pattern.search(line))
    if answered != expected:
        return Result(False, f"{answered} of {expected} GPUs answer")
    return Result(True)


def parse_xids(text):
    """Return (hash, code, device) for each NVIDIA XID line of a kernel log, in log order.

    The hash covers the whole line, timestamp included, so a repeat of the same
    XID later is a new event.
    """
    xids = []
    for line in text.splitlines():
        match = XID_RE.search(line)
        if match:
            digest = hashlib.sha256(line.strip().encode()).hexdigest()[:16]
            xids.append((digest, int(match.group(2)), match.group(1)))
    return xids


def load_xid_seen(state_dir):
    """Hashes of XID lines already acted on; empty when there is no (readable) state."""
    try:
        with open(os.path.join(state_dir, XID_STATE), encoding="utf-8") as fh:
            seen = json.load(fh)["seen"]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return set(seen) if isinstance(seen, list) else set()


def save_xid_seen(state_dir, hashes):
    """Write the state atomically (a killed writer never leaves a truncated file)."""
    os.makedirs(state_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=state_dir, prefix=".xid.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"version": 1, "seen": hashes}, fh)
        os.replace(tmp, os.path.join(state_dir, XID_STATE))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_xid(spec, config):
    """Fail (sticky) on XID lines not seen by an earlier run.

    With no state (fresh install, state lost) every XID in the log is new: an
    XID since boot is worth an operator's look, so the safe choice is to drain.
    The state is the set of hashes of the XID lines currently in the log, so it
    is bounded by the ring buffer and lines that rotate out are simply dropped.
    It is saved by the caller only once the failure has been acted on (drain
    reason in place), so a failed scontrol can't lose an XID.
    """
    xids = parse_xids(_succeeded(run_command(spec["command"])).stdout)
    seen = load_xid_seen(config["state_dir"])
    state = list(dict.fromkeys(digest for digest, _code, _device in xids))[-XID_SEEN_MAX:]
    new = [f"Xid {code} on {device}" for digest, code, device in xids if digest not in seen and code not in spec["ignore"]]
    if not new:
        return Result(True, state=state)
    return Result(False, _summarize(list(dict.fromkeys(new))), sticky=True, state=state)


def _read_sysfs(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().strip()
    except OSError:
        return None


def _port_problem(port_dir, label, rate_gbps):
    state = _read_sysfs(os.path.join(port_dir, "state"))  # "4: ACTIVE"
    if state is None:
        return f"{label} state unreadable"
    name = state.split(":", 1)[-1].strip()
    if name != "ACTIVE":
        return f"{label} {name or 'no state'}"
    if rate_gbps is None:
        return None
    rate = _read_sysfs(os.path.join(port_dir, "rate")) or ""  # "400 Gb/sec (4X NDR)"
    match = re.match(r"([0-9.]+)", rate)
    if not match:
        return f"{label} rate {rate or 'unreadable'}"
    gbps = float(match.group(1))
    return f"{label} {_num(gbps)} Gb/sec < {_num(rate_gbps)}" if gbps < rate_gbps else None


def check_ib_ports(spec, config):
    root = spec["sysfs"]
    hcas = spec["hcas"]
    if hcas is None:  # no HCAs found and none required: a node without InfiniBand
        hcas = sorted(os.listdir(root)) if os.path.isdir(root) else []
    problems = []
    for hca in hcas:
        ports_dir = os.path.join(root, hca, "ports")
        if not os.path.isdir(os.path.join(root, hca)):
            problems.append(f"{hca} missing")
            continue
        ports = sorted(os.listdir(ports_dir), key=lambda p: (len(p), p)) if os.path.isdir(ports_dir) else []
        if not ports:
            problems.append(f"{hca} has no ports")
        for port in ports:
            problem = _port_problem(os.path.join(ports_dir, port), f"{hca}/{port}", spec["rate_gbps"])
            if problem:
                problems.append(problem)
    return _verdict(problems)


def check_driver(spec, config):
    """The loaded module and every installed package pinned to the driver (fabric manager, NSCQ, persistenced...)
    at the driver's version: a half-finished driver change or an unheld package upgrade drains the node. With
    ``gdr``, nvidia_peermem loaded wherever the module is and an InfiniBand HCA is present (GPUDirect RDMA)."""
    wanted = spec["version"]
    off = []
    loaded = _read_sysfs(spec["module"])
    if loaded is not None and loaded != wanted:
        off.append(f"module {loaded}")
    if spec["packages"]:
        # dpkg-query exits 1 when a named package is not installed (not every host has the fabric manager).
        proc = run_command(spec["command"] + spec["packages"])
        for line in proc.stdout.splitlines():
            fields = line.split("|")
            if len(fields) < 3 or fields[2][1:2] != "i":
                continue
            version = fields[1].split(":", 1)[-1].split("-", 1)[0]
            if version != wanted:
                off.append(f"{fields[0]} {version}")
    problems = [f"{_summarize(off)} not {wanted}"] if off else []
    hcas = os.path.join(spec["sysfs"], "class", "infiniband")
    gpus_and_hcas = spec["gdr"] and loaded is not None and os.path.isdir(hcas) and os.listdir(hcas)
    if gpus_and_hcas and not os.path.isdir(os.path.join(spec["sysfs"], "module", "nvidia_peermem")):
        problems.append("nvidia_peermem not loaded (no GPUDirect RDMA)")
    return _verdict(problems)


def check_npu_links(spec, config):
    """Each NPU's own RoCE port up, as hccn_tool reads it (``link status: UP``)."""
    down = []
    for device in spec["devices"]:
        proc = _succeeded(run_command(spec["command"] + ["-i", str(device), "-link", "-g"]))
        match = re.search(r"link status:\s*(\S+)", proc.stdout, re.I)
        if not (match and match.group(1).upper() == "UP"):
            down.append(f"NPU {device} {match.group(1) if match else 'unread'}")
    return _verdict(down)


def check_disk_free(spec, config):
    problems = []
    for path, minimum in spec["paths"].items():
        try:
            st = os.statvfs(path)
        except FileNotFoundError:
            problems.append(f"{path} missing")
            continue
        except OSError as exc:
            problems.append(f"{path} {exc.strerror}")
            continue
        free = st.f_bavail * st.f_frsize // MIB  # space unprivileged users can use
        if free < minimum:
            problems.append(f"{path} {free} MiB free < {_num(minimum)}")
    return _verdict(problems)


def check_memory(spec, config):
    with open(spec["meminfo"], encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("MemTotal:"):
                total = int(line.split()[1]) // 1024  # kB -> MiB
                break
        else:
            raise CheckFailed(f"no MemTotal in {spec['meminfo']}")
    if total < spec["real_memory_mb"]:
        return Result(False, f"MemTotal {total} MiB < RealMemory {_num(spec['real_memory_mb'])}")
    return Result(True)


def check_munge(spec, config):
    _succeeded(run_command(spec["command"]))
    return Result(True)


def check_clock(spec, config):
    value = _succeeded(run_command(spec["command"])).stdout.strip()
    if value != spec["expect"]:
        return Result(False, f"got {value!r}, expected {spec['expect']!r}")
    return Result(True)


CHECKS = {
    "gres_devices": check_gres_devices,
    "smi": check_smi,
    "xid": check_xid,
    "ib_ports": check_ib_ports,
    "memory": check_memory,
    "disk_free": check_disk_free,
    "munge": check_munge,
    "clock": check_clock,
    "driver": check_driver,
    "npu_links": check_npu_links,
}

# ---------------------------------------------------------------- running


def _check_child(name, spec, config, conn):
    # A process group of its own: one killpg ends the check and every command it started,
    # even one that ignores SIGTERM or forked helpers.
    os.setsid()
    try:
        result = CHECKS[name](spec, config)
    except CheckFailed as exc:
        result = Result(False, str(exc))
    except Exception as exc:  # a broken check still yields a FAIL line, not a crash
        result = Result(False, f"{type(exc).__name__}: {exc}")
    result.detail = " ".join(result.detail.split())  # one line: it ends up in a Slurm reason
    conn.send(dataclasses.astuple(result))  # plain tuple: pickling needs no importable module


def _kill(proc):
    """SIGKILL the check's process group, then wait at most KILL_GRACE for it to be reaped.

    A child stuck in uninterruptible sleep survives SIGKILL; we stop waiting
    for it rather than hang (see the os._exit at the bottom).
    """
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # fails if the child has not called setsid yet
    proc.kill()
    proc.join(KILL_GRACE)


def _receive(conn, proc):
    try:
        return Result(*conn.recv())
    except EOFError:
        proc.join(KILL_GRACE)
        return Result(False, f"check process died (exit code {proc.exitcode})")
    finally:
        conn.close()


def run_checks(config):
    """Run all configured checks at once, each in a forked child with its own deadline.

    Returns {name: Result} in CHECK_OPTIONS order, after at most
    max(check timeouts) + KILL_GRACE seconds.
    """
    ctx = multiprocessing.get_context("fork")
    start = time.monotonic()
    running = {}  # connection -> (name, process, deadline, timeout)
    for name, spec in config["checks"].items():
        receiver, sender = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_check_child, args=(name, spec, config, sender), name=f"nhc-{name}")
        proc.start()
        sender.close()  # so a dead child reads as EOF
        running[receiver] = (name, proc, start + spec["timeout"], spec["timeout"])
    results = {}
    while running:
        wait_for = max(0.0, min(entry[2] for entry in running.values()) - time.monotonic())
        for conn in multiprocessing.connection.wait(list(running), timeout=wait_for):
            name, proc = running.pop(conn)[:2]
            results[name] = _receive(conn, proc)
            results[name].seconds = time.monotonic() - start
            _kill(proc)  # also ends anything the check left running
        now = time.monotonic()
        for conn, (name, proc, deadline, timeout) in list(running.items()):
            if now >= deadline:
                del running[conn]
                conn.close()
                _kill(proc)
                results[name] = Result(False, f"timed out after {_num(timeout)}s", seconds=now - start)
    return {name: results[name] for name in config["checks"]}


def format_line(name, result):
    return f"ok {name}" if result.ok else f"FAIL {name}: {result.detail}"


def build_reason(results):
    """The drain reason for the failed checks, or None when all passed.

    Leads with a sticky failure if there is one; at most REASON_MAX characters.
    """
    failed = sorted(((name, r) for name, r in results.items() if not r.ok), key=lambda item: not item[1].sticky)
    if not failed:
        return None
    name, first = failed[0]
    head = f"{STICKY_PREFIX if first.sticky else SOFT_PREFIX}{name}: {first.detail}"
    tail = f"; +{len(failed) - 1} more" if len(failed) > 1 else ""
    if len(head) + len(tail) > REASON_MAX:
        head = head[: REASON_MAX - len(tail) - 3] + "..."
    return head + tail


def save_xid_state(config, results):
    result = results.get("xid")
    if result is None or result.state is None:
        return
    try:
        save_xid_seen(config["state_dir"], result.state)
    except OSError as exc:
        print(f"{PROG}: cannot save XID state in {config['state_dir']}: {exc}", file=sys.stderr)


# ---------------------------------------------------------------- slurm

STATE_RE = re.compile(r"(?:^|\s)State=(\S+)")
REASON_RE = re.compile(r"(?:^|\s)Reason=(.*)")
REASON_STAMP_RE = re.compile(r" \[[^\s\[\]]+@[^\s\[\]]+\]")  # " [root@2026-12-03T08:10:01]"


def parse_node(text):
    """Return (state, reason) from `scontrol -o show node` output; reason is "" when there is none.

    The reason may contain spaces; it runs to the " [user@time]" stamp scontrol
    appends, or to the end of the line.
    """
    line = re.sub(r"\s*\n\s*", " ", text.strip().split("\n\n")[0])  # first record, as one line without -o too
    state = STATE_RE.search(line)
    if not state:
        raise SlurmError(f"no State= in scontrol output: {_first_line(text)!r}")
    reason = REASON_RE.search(line)
    if not reason:
        return state.group(1), ""
    rest = reason.group(1)
    stamp = REASON_STAMP_RE.search(rest)
    return state.group(1), (rest[: stamp.start()] if stamp else rest).strip()


def is_drained(state):
    """True for IDLE+DRAIN, MIXED+DRAIN, DOWN+DRAIN, DRAINED, DRAINING..."""
    return any(flag.rstrip("*").startswith("DRAIN") for flag in state.split("+"))


def decide(drained, current, wanted):
    """The `scontrol update` arguments that bring the node in line, or None.

    wanted is the drain reason, None when all checks passed. Only drains whose
    reason starts with "nhc" are ours to change; "nhc! " ones are never resumed
    nor replaced by an "nhc: " reason.
    """
    ours = current.startswith((SOFT_PREFIX, STICKY_PREFIX))
    if wanted is None:
        return ["State=RESUME"] if drained and current.startswith(SOFT_PREFIX) else None
    if not drained:
        return ["State=DRAIN", f"Reason={wanted}"]
    if not ours or current == wanted or (current.startswith(STICKY_PREFIX) and not wanted.startswith(STICKY_PREFIX)):
        return None
    return ["State=DRAIN", f"Reason={wanted}"]


def scontrol(config, *args):
    """Run scontrol with the config's timeout; return stdout or raise SlurmError."""
    argv = [config["scontrol"], *args]
    timeout = config["timeout"]
    try:
        proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True
        )
    except OSError as exc:
        raise SlurmError(f"{argv[0]}: {exc.strerror}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=KILL_GRACE)
        raise SlurmError(f"{' '.join(argv)}: timed out after {_num(timeout)}s") from None
    if proc.returncode != 0:
        raise SlurmError(f"{' '.join(argv)}: exit {proc.returncode}: {_first_line(err, out)}")
    return out


def apply_to_slurm(config, results):
    """Drain, re-reason or resume the node; return True when Slurm now reflects the results."""
    wanted = build_reason(results)
    state, current = parse_node(scontrol(config, "-o", "show", "node", config["node"]))
    args = decide(is_drained(state), current, wanted)
    if args:
        scontrol(config, "update", f"NodeName={config['node']}", *args)
        print(f"{config['node']}: {' '.join(args)}")
        return True
    return wanted is None or current == wanted


# ---------------------------------------------------------------- main


def parse_args(argv):
    parser = argparse.ArgumentParser(prog=PROG, description="Slurm node health check.")
    parser.add_argument("--config", default=DEFAULT_CONFIG, help=f"JSON config (default {DEFAULT_CONFIG})")
    parser.add_argument("--mode", choices=("health", "prolog", "report"), default="health")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"{PROG}: config error: {exc}", file=sys.stderr)
        return 2
    results = run_checks(config)
    for name, result in results.items():
        print(format_line(name, result))
    failed = not all(result.ok for result in results.values())

    if args.mode == "report":  # read-only: XID state is left for the health run to act on
        summary = {name: {"ok": r.ok, "detail": r.detail, "seconds": round(r.seconds, 3)} for name, r in results.items()}
        print(json.dumps({"node": config["node"], "checks": summary}))
        return 1 if failed else 0

    if args.mode == "prolog":  # a failing prolog makes slurmd drain the node itself
        save_xid_state(config, results)
        if failed:
            print(build_reason(results), file=sys.stderr)
            return 1
        return 0

    try:
        in_place = apply_to_slurm(config, results)
    except SlurmError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    # Remember XIDs only once the node shows them (or there were none new): a node drained by
    # someone else keeps reporting them until we can set our sticky reason.
    if in_place or ("xid" in results and results["xid"].ok):
        save_xid_state(config, results)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip multiprocessing's atexit join of children: one stuck in uninterruptible sleep
    # (hung NFS, wedged GPU driver) would otherwise hang slurmd's health check.
    os._exit(code)
