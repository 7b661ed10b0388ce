#!/usr/bin/env python3
"""Runs every benchmark of speccoder against what a user would run instead, in the same
run, and writes docs/benchmarks.md with the ratios of medians.

Called by scripts/bench, which installs the tools (hyperfine among them) and builds the
release binary first. Every ratio compares two commands measured one after the other on
this machine, so a busy machine slows both sides alike.
"""

import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Where cargo put the release build (CARGO_TARGET_DIR when set, as scripts/bench builds it).
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
SPECCODER = (REPO / TARGET).resolve() / "release" / "speccoder"
QUICK = os.environ.get("BENCH_QUICK") == "1"


def sh(cmd, cwd=None, env=None, check=True):
    return subprocess.run(cmd, cwd=cwd, env=env, shell=isinstance(cmd, str), check=check,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def hyperfine(commands, cwd, env=None, runs=30, warmup=3, prepare=None, ignore_failure=False):
    """Medians (seconds) of each command, measured by hyperfine without a shell."""
    # Outside the project: a file written into its root would make the detection cache
    # stale and the next speccoder run a cold one.
    out = Path(tempfile.gettempdir()) / f"speccoder-hyperfine-{os.getpid()}.json"
    args = ["hyperfine", "-N", "--warmup", str(warmup), "--runs", str(runs),
            "--export-json", str(out)]
    if ignore_failure:
        args.append("--ignore-failure")
    if prepare:
        args += ["--prepare", prepare]
    subprocess.run(args + commands, cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = json.loads(out.read_text())["results"]
    out.unlink()
    return [r["median"] for r in results]


def interleaved(commands, cwd, env=None, rounds=90, warmup=3):
    """Medians (seconds) of each command, run in turn round by round rather than in
    blocks: on a shared machine a slow spell then falls on every command alike. Row 1's
    ratio moved 1.02–1.40 between three block runs of hyperfine in a row; run this way,
    1.07–1.19 in five runs. Each run is timed around its start and exit from here, which adds the same
    fork and exec to every command."""
    argvs = [shlex.split(c) for c in commands]
    times = [[] for _ in argvs]
    for _ in range(warmup):
        for argv in argvs:
            subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
    for _ in range(rounds):
        for argv, kept in zip(argvs, times):
            start = time.perf_counter()
            subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            kept.append(time.perf_counter() - start)
    return [statistics.median(kept) for kept in times]


def write_nocache(dir_):
    path = Path(dir_) / "nocache.toml"
    path.write_text("[recipe]\ncache = false\n")
    return str(path)


def all_five(work):
    """The all-five fixture with a `noop` make target and a 1 GiB `big` target."""
    root = Path(work) / "all-five"
    shutil.copytree(REPO / "fixtures" / "all-five", root, symlinks=True)
    with open(root / "Makefile", "a") as f:
        f.write("\n.PHONY: noop big sleepy\nnoop:\n\t@:\n"
                "big:\n\t@head -c 1073741824 /dev/zero\n"
                "sleepy:\n\t@exec sleep 30\n")
    return root


def make_50k(work):
    root = Path(work) / "make50k"
    root.mkdir()
    with open(root / "Makefile", "w") as f:
        for i in range(50_000):
            f.write(f"target_{i:05d}: ## builds part {i} of the project\n\t@echo {i}\n\n")
    return root


def cold_detection(sc, shown, work, env, runs, row):
    """1. Cold detection of all five runners against the slowest probe alone. Gives the
    project and the no-cache config, which the rows after it use too."""
    project = all_five(work)
    nocache = write_nocache(work)
    ours, base = interleaved(
        [f"{sc} --config {nocache} recipe list --json", "task --list-all --json --no-status"],
        cwd=project, env=env, rounds=3 * runs)
    row("1. cold detection, five runners vs `task --list-all --json --no-status`",
        ms(ours), ms(base), ours / base, 1.15,
        f"cd all-five && scripts/bench.py interleaved: '{shown} --config nocache.toml recipe "
        "list --json' and 'task --list-all --json --no-status' in turn, 90 rounds")
    return project, nocache


def make_listing(sc, shown, work, env, runs, row):
    """4. `recipe list --json` of a generated 50,000-target Makefile against `make -pRrq :`."""
    big = make_50k(work)
    count, _ = task_count(big, {**env, "SPECCODER_CACHE_DIR": str(work / "cache-off")})
    assert count == 50_000, count
    nc = write_nocache(big)
    # `make -pRrq :` exits 2 ("No rule to make target ':'") after printing its database.
    ours, base = hyperfine([f"{sc} --config {nc} recipe list --json", "make -pRrq :"],
                           cwd=big, env=env, runs=max(5, runs * 2 // 3), warmup=1,
                           ignore_failure=True)
    size = (big / "Makefile").stat().st_size / 1e6
    row(f"4. `recipe list --json`, 50,000-target Makefile ({size:.1f} MB) vs `make -pRrq :`",
        ms(ours), ms(base), ours / base, 0.20,
        f"hyperfine -N '{shown} --config nocache.toml recipe list --json' 'make -pRrq :'")


def pnpm_monorepo(work, packages=2000, scripts=5):
    root = Path(work) / "monorepo"
    (root / "packages").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "mono", "private": True, "scripts": {"lint": "echo lint"}}))
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - 'packages/*'\n")
    for p in range(packages):
        pkg = root / "packages" / f"pkg-{p:04d}"
        deps = pkg / "node_modules" / "left-pad"
        deps.mkdir(parents=True)
        (pkg / "package.json").write_text(json.dumps({
            "name": f"@mono/pkg-{p:04d}", "version": "1.0.0", "private": True,
            "scripts": {f"s{s}": f"echo {s}" for s in range(scripts)}}))
        (deps / "package.json").write_text(json.dumps(
            {"name": "left-pad", "version": "1.3.0", "scripts": {"evil": "echo evil"}}))
    return root


def monorepo_300(work, packages=300):
    """A pnpm monorepo shaped like a real one: brace and `**` patterns, a `!` exclusion,
    packages under apps/, libs/ and tools/ (the same shape as the tests' generator)."""
    root = Path(work) / "monorepo-300"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "mono", "private": True, "scripts": {
        "postinstall": "echo ran postinstall", "build": "echo ran build",
        "test": "echo ran test", "lint": "echo ran lint", "release": "echo ran release"}}))
    (root / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n")
    (root / "pnpm-workspace.yaml").write_text(
        "packages:\n  - '{apps,libs}/*'\n  - 'tools/**'\n  - '!**/fixtures/**'\n")
    for i in range(packages):
        d = [f"apps/app{i:03d}", f"libs/lib{i:03d}", f"tools/group{i % 7}/tool{i:03d}"][i % 3]
        pkg = root / d
        pkg.mkdir(parents=True)
        (pkg / "package.json").write_text(json.dumps({"name": f"@mono/p{i:03d}", "scripts": {
            s: f"echo ran {s}" for s in ["prebuild", "build", "test", "storybook", "clean"]}}))
    return root


def failing_project(work):
    """The all-five project with a Taskfile go-task cannot parse: `task` fails."""
    root = Path(work) / "failing"
    shutil.copytree(Path(work) / "all-five", root, symlinks=True)
    (root / "Taskfile.yml").write_text("version: '3'\ntasks: [unclosed\n")
    return root


def task_count(root, env):
    out = sh([str(SPECCODER), "-C", str(root), "recipe", "list", "--json"], env=env)
    data = json.loads(out.stdout)
    return sum(len(r["tasks"]) for r in data["runners"]), data


def main():
    args = sys.argv[1:]
    only = args[1:] if args[:1] == ["--only"] else []
    if args and not only:
        sys.exit("usage: bench.py [--only 1|4|10c]")
    env = dict(os.environ)
    work = Path(tempfile.mkdtemp(prefix="speccoder-bench-"))
    env["SPECCODER_CACHE_DIR"] = str(work / "cache")
    env["TMPDIR"] = str(work / "tmp")
    # Kept outputs go to the state folder: the benchmark's own, so the 1 GiB runs never fill
    # the user's and can be removed between runs.
    env["XDG_STATE_HOME"] = str(work / "state")
    (work / "tmp").mkdir()
    runs = 10 if QUICK else 30
    rows = []

    def row(target, ours, base, ratio, goal, command):
        ok = ratio <= goal
        rows.append((target, ours, base, f"{ratio:.3f}", f"≤ {goal}", "met" if ok else "MISSED",
                     command))
        print(f"{target}: {ratio:.3f} (goal ≤ {goal}) {'met' if ok else 'MISSED'}", flush=True)

    sc = str(SPECCODER)
    # The reproduce column names the binary as a default build puts it.
    shown = "target/release/speccoder"
    if only:
        # One row alone: only rows measured by a function of their own can run so.
        alone = {"1": cold_detection, "4": make_listing, "10c": attempt_pytest}
        if len(only) != 1 or only[0] not in alone:
            sys.exit(f"bench.py: --only takes one of {', '.join(alone)} (the rows that can run "
                     f"alone), not {only}")
        alone[only[0]](sc, shown, work, env, runs, row)
        update_report(rows)
        shutil.rmtree(work, ignore_errors=True)
        return

    project, nocache = cold_detection(sc, shown, work, env, runs, row)

    # 2. Warm resolve (cache) against a cold one.
    sh([sc, "recipe", "resolve", "make:noop"], cwd=project, env=env)
    time.sleep(0.2)
    sh([sc, "recipe", "resolve", "make:noop"], cwd=project, env=env)
    warm, cold = hyperfine(
        [f"{sc} recipe resolve make:noop", f"{sc} --config {nocache} recipe resolve make:noop"],
        cwd=project, env=env, runs=runs)
    row("2. warm `recipe resolve` vs cold", ms(warm), ms(cold), warm / cold, 0.10,
        f"hyperfine -N '{shown} recipe resolve make:noop' "
        f"'{shown} --config nocache.toml recipe resolve make:noop'")

    # 3. A no-op task run warm against running it directly.
    sh([sc, "recipe", "resolve", "make:noop"], cwd=project, env=env)
    ours, base = hyperfine([f"{sc} recipe run make:noop", "make noop"], cwd=project, env=env,
                           runs=runs * 3, warmup=5)
    row("3. warm `recipe run make:noop` vs `make noop`", ms(ours), ms(base), ours / base, 1.5,
        f"hyperfine -N '{shown} recipe run make:noop' 'make noop'")

    # 3b. The same no-op through an already running `speccoder mcp`, call to result.
    cli_noop, make_noop = ours, base
    served = mcp_noop(sc, project, env, runs=runs * 10)
    rows.append(("3b. warm no-op through a running `speccoder mcp` (call to result) vs `make noop`",
                 f"{ms(served)} (CLI {ms(cli_noop)})", ms(make_noop),
                 f"{served / make_noop:.3f}", "≤ 1.2",
                 "met" if served / make_noop <= 1.2 else "MISSED",
                 "scripts/bench.py mcp_noop: tools/call make:noop, timed by the client"))
    print(f"3b. mcp no-op {served / make_noop:.3f} (goal ≤ 1.2)", flush=True)

    # 4. 50,000 make targets.
    make_listing(sc, shown, work, env, runs, row)

    # 5. A pnpm monorepo of 2,000 packages x 5 scripts with node_modules.
    mono = pnpm_monorepo(work)
    count, data = task_count(mono, {**env, "SPECCODER_CACHE_DIR": str(work / "cache-off")})
    assert count == 10_001, count
    assert "evil" not in json.dumps(data)
    nc = write_nocache(mono)
    ours, base = hyperfine([f"{sc} --config {nc} recipe list --json",
                            "pnpm ls -r --depth -1 --json"],
                           cwd=mono, env=env, runs=max(5, runs * 2 // 3), warmup=1)
    row("5. `recipe list --json`, pnpm monorepo 2,000 x 5 vs `pnpm ls -r --depth -1 --json`",
        ms(ours), ms(base), ours / base, 0.30,
        f"hyperfine -N '{shown} --config nocache.toml recipe list --json' "
        "'pnpm ls -r --depth -1 --json'")

    # 6. 1 GiB of output: peak memory and wall time against `cat >/dev/null`.
    # Each run keeps its 1 GiB output; remove it before the next run.
    clean = f"rm -rf {work / 'state'}/speccoder/outputs"
    ours, base = hyperfine(
        [f"{sc} recipe run make:big",
         "sh -c 'head -c 1073741824 /dev/zero | cat >/dev/null'"],
        cwd=project, env=env, runs=max(3, runs // 5), warmup=1, prepare=clean)
    row("6a. 1 GiB through `recipe run` vs the pipe into `cat >/dev/null`", ms(ours), ms(base),
        ours / base, 1.5,
        f"hyperfine -N '{shown} recipe run make:big' "
        "\"sh -c 'head -c 1073741824 /dev/zero | cat >/dev/null'\"")
    timed = sh(["/usr/bin/time", "-v", sc, "recipe", "run", "make:big"], cwd=project, env=env)
    rss_kb = next(int(line.split(":")[1]) for line in timed.stderr.splitlines()
                  if "Maximum resident set size" in line)
    shutil.rmtree(work / "state" / "speccoder" / "outputs", ignore_errors=True)
    rss_mib = rss_kb / 1024
    rows.append(("6b. peak memory of `recipe run` printing 1 GiB", f"{rss_mib:.1f} MiB", "—",
                 f"{rss_mib:.1f} MiB", "≤ 64 MiB", "met" if rss_mib <= 64 else "MISSED",
                 f"/usr/bin/time -v {shown} recipe run make:big"))
    print(f"6b. peak RSS {rss_mib:.1f} MiB", flush=True)

    # 7. Timeout: the call returns soon after the deadline (the cache warmed first).
    sh([sc, "recipe", "resolve", "make:sleepy"], cwd=project, env=env)
    time.sleep(0.2)
    sh([sc, "recipe", "resolve", "make:sleepy"], cwd=project, env=env)
    late = []
    for _ in range(50 if not QUICK else 10):
        start = time.monotonic()
        sh([sc, "recipe", "run", "--timeout", "1", "make:sleepy"], cwd=project, env=env,
           check=False)
        late.append((time.monotonic() - start - 1.0) * 1000)
    late.sort()
    p50 = statistics.median(late)
    p99 = late[min(len(late) - 1, round(0.99 * (len(late) - 1)))]
    rows.append(("7. return after the deadline (50 runs, TERM honoured)",
                 f"p50 {p50:.1f} ms", "—", f"p99 {p99:.1f} ms", "≤ 100 ms",
                 "met" if p99 <= 100 else "MISSED",
                 f"{shown} recipe run --timeout 1 make:sleepy, timed from outside"))
    print(f"7. timeout lateness p50 {p50:.1f} ms p99 {p99:.1f} ms", flush=True)

    # 8. Warm resolve in a 300-package monorepo against starting speccoder at all.
    mono300 = monorepo_300(work)
    op = "@mono/p150/test"
    for _ in range(2):
        sh([sc, "recipe", "resolve", op], cwd=mono300, env=env)
        time.sleep(0.2)
    ours, base = hyperfine([f"{sc} recipe resolve {op}", f"{sc} --version"], cwd=mono300,
                           env=env, runs=runs)
    row("8. warm `recipe resolve`, pnpm monorepo of 300 packages, vs `speccoder --version`",
        ms(ours), ms(base), ours / base, 3.0,
        f"cd monorepo-300 && hyperfine -N '{shown} recipe resolve {op}' '{shown} --version'")

    # 9. Warm resolve where a runner failed (the failure is cached) vs all working.
    failing = failing_project(work)
    for _ in range(2):
        sh([sc, "recipe", "resolve", "make:noop"], cwd=failing, env=env)
        sh([sc, "recipe", "resolve", "make:noop"], cwd=project, env=env)
        time.sleep(0.2)
    ours, base = hyperfine([f"{sc} -C {failing} recipe resolve make:noop",
                            f"{sc} -C {project} recipe resolve make:noop"],
                           cwd=project, env=env, runs=runs)
    row("9. warm `recipe resolve` with a failed runner (`task`) vs all runners working",
        ms(ours), ms(base), ours / base, 1.2,
        f"hyperfine -N '{shown} -C failing recipe resolve make:noop' "
        f"'{shown} -C all-five recipe resolve make:noop'")

    # 10. The attempt's own overhead: a stand-in agent that changes nothing (10a) or adds
    # 10,000 new files (10b), no checks, on a 10,000-file repository; against copying the
    # repository file by file, which the check tree must not cost.
    repo10k, bundle = repo_10k(work)
    copy = work / "copy-10k"
    attempt = f"{sc} attempt --bundle {bundle}"
    again = f"git -C {repo10k} branch -D speccoder/B1"
    cp = f"sh -c 'rm -rf {copy} && cp -r {repo10k} {copy}'"
    for name, agent in (("10a. attempt overhead, 10,000-file repository, no change", "true"),
                        ("10b. attempt overhead, 10,000 new files",
                         "mkdir new && cd new && seq 1 10000 | xargs touch")):
        aenv = dict(env, AGENT=agent)
        ours, base = hyperfine([attempt, cp], cwd=repo10k, env=aenv, runs=max(5, runs // 3),
                               warmup=1, prepare=f"sh -c '{again} 2>/dev/null; true'")
        row(f"{name}, vs `cp -r` of the repository", ms(ours), ms(base), ours / base, 3.0,
            "cd repo-10k && hyperfine -N --prepare 'git branch -D speccoder/B1' "
            f"'{shown} attempt --bundle "
            f"../bundle-10k.json' 'cp -r . ../copy'")

    attempt_pytest(sc, shown, work, env, runs, row)

    write_report(rows)
    shutil.rmtree(work, ignore_errors=True)


def repo_10k(work, files=10_000):
    """A git repository of `files` small files in 100 folders, with a bundle and a stand-in
    agent that changes nothing (or adds as many new files), for the attempt's overhead."""
    root = Path(work) / "repo-10k"
    for i in range(files):
        folder = root / f"d{i % 100:02}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.txt").write_text(f"file {i}\n")
    (root / "speccoder.toml").write_text(
        "[executor]\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"eval \\\"$AGENT\\\"\"]\n\n"
        "[attempt]\nchecks = []\nmax_attempts = 1\n")
    git_env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"]):
        subprocess.run(cmd, cwd=root, env=git_env, check=True)
    bundle = Path(work) / "bundle-10k.json"
    bundle.write_text(json.dumps({"task": {"id": "B1", "title": "bench"}}))
    return root, bundle


# Row 10c's suite: 20 tests of 0.05 s each, so one run of it takes about a second.
PYTEST_TESTS, PYTEST_SLEEP = 20, 0.05


def attempt_pytest(sc, shown, work, env, runs, row):
    """10c. An attempt whose check is a real pytest suite of about a second, against running
    that suite by hand. The baseline is removed before every run, so an attempt is two runs of
    the suite (the base's and the verdict's) plus speccoder's own work; the canary is planted
    into both and runs in the same invocation, so it adds no third run."""
    repo, fixed, bundle = pytest_project(work)
    attempt = f"{sc} -C {repo} attempt --bundle {bundle}"
    # A fresh baseline each run: no branch, no cached baseline, no journal of earlier runs.
    state = repo / ".git" / "speccoder"
    again = (f"sh -c 'git -C {repo} branch -D speccoder/T1 >/dev/null 2>&1; "
             f"rm -rf {state}/baselines {state}/attempts; true'")
    # The stand-in agent's fix must pass, or the row would time a failed attempt.
    sh(again, env=env)
    done = sh(attempt, env=env, check=False)
    assert done.returncode == 0 and "passed" in done.stdout, (done.stdout, done.stderr)
    by_hand = sh(["pytest", "-q"], cwd=fixed, env=env, check=False)
    assert by_hand.returncode == 0 and f"{PYTEST_TESTS} passed" in by_hand.stdout, by_hand.stdout
    ours, base = hyperfine([attempt, "pytest -q"], cwd=fixed, env=env, runs=max(5, runs // 3),
                           warmup=1, prepare=again)
    row(f"10c. attempt on a pytest suite of ~{PYTEST_TESTS * PYTEST_SLEEP:.0f} s "
        f"({PYTEST_TESTS} tests), fresh baseline, vs running the suite by hand",
        ms(ours), ms(base), ours / base, 2.6,
        "cd fixed-10c && hyperfine -N --prepare 'sh -c \"git -C ../pytest-10c branch -D "
        "speccoder/T1; rm -rf ../pytest-10c/.git/speccoder/baselines "
        "../pytest-10c/.git/speccoder/attempts\"' "
        f"'{shown} -C ../pytest-10c attempt --bundle ../bundle-10c.json' 'pytest -q'")


def pytest_project(work):
    """A git repository whose pytest suite takes about a second, with one test failing at the
    base (`add` subtracts); a stand-in agent (kind = "command") that writes the honest fix; the
    task's bundle; and a copy of the project with the fix in, where the suite is run by hand."""
    root = Path(work) / "pytest-10c"
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\npythonpath = .\n")
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    tests = ["import time", "", "from calc import add", ""]
    for i in range(PYTEST_TESTS - 1):
        tests += [f"def test_add_zero_{i:02}():", f"    time.sleep({PYTEST_SLEEP})",
                  f"    assert add({i}, 0) == {i}", ""]
    tests += ["def test_add_two_numbers():", f"    time.sleep({PYTEST_SLEEP})",
              "    assert add(2, 3) == 5", ""]
    (root / "tests" / "test_calc.py").write_text("\n".join(tests))
    fix = "def add(a, b):\n    return a + b\n"
    # The agent: `printf 'def add(a, b):\n    return a + b\n' > calc.py` (TOML doubles the \).
    agent = "printf '" + fix.replace("\n", "\\\\n") + "' > calc.py"
    (root / "speccoder.toml").write_text(
        "[executor]\nkind = \"command\"\n"
        f"argv = [\"sh\", \"-c\", \"{agent}\"]\n\n"
        "[attempt]\nchecks = [\"test\"]\nmax_attempts = 1\n")
    git_env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"]):
        subprocess.run(cmd, cwd=root, env=git_env, check=True)
    fixed = Path(work) / "fixed-10c"
    shutil.copytree(root, fixed, ignore=shutil.ignore_patterns(".git"))
    (fixed / "calc.py").write_text(fix)
    bundle = Path(work) / "bundle-10c.json"
    bundle.write_text(json.dumps({"task": {"id": "T1", "title": "add adds"}}))
    return root, fixed, bundle


def mcp_noop(sc, project, env, runs):
    """Median seconds from writing a `tools/call` of `make:noop` to reading its answer, on
    one `speccoder mcp` that has already answered a few calls (detection cached)."""
    server = subprocess.Popen([sc, "-C", str(project), "mcp"], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def call(n, method, params):
        server.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                                        "params": params}) + "\n").encode())
        server.stdin.flush()
        while True:
            answer = json.loads(server.stdout.readline())
            if answer.get("id") == n:
                return answer

    call(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}})
    times = []
    for n in range(1, runs + 21):
        start = time.perf_counter()
        answer = call(n, "tools/call", {"name": "recipe", "arguments": {"op": "make:noop"}})
        elapsed = time.perf_counter() - start
        assert not answer["result"]["isError"], answer
        if n > 20:
            times.append(elapsed)
    server.stdin.close()
    server.wait()
    return statistics.median(times)


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def write_report(rows):
    cpu = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    versions = {t: sh([t, "--version"], check=False).stdout.splitlines()[0]
                for t in ["make", "task", "pnpm", "hyperfine"]}
    lines = [
        "# Benchmarks",
        "",
        "Written by `./scripts/bench` (do not edit by hand). Each target compares speccoder "
        "with what a user would run instead, both measured in the same run; the figure is the "
        "ratio of the medians (ours / theirs), so a busy machine slows both sides alike.",
        "",
        f"Machine: {os.cpu_count()} cores, {cpu}, Linux {platform.release()}. "
        + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".",
        "",
        "| target | speccoder | baseline | ratio | goal | | reproduce |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [table_line(r) for r in rows]
    lines += [
        "",
        "Method: hyperfine without a shell (`-N`), warm-up runs first, medians of 30 runs "
        "(fewer for the slow ones); cold means `[recipe] cache = false`; the 1 GiB run keeps "
        "its full output on disk as every long run does, and the file is removed between "
        "runs (hyperfine `--prepare`). Peak memory is GNU time's maximum resident set size. Timeout lateness is the "
        "wall time of the whole `speccoder` process less the 1 s deadline.",
        "",
    ]
    lines += notes()
    (REPO / "docs" / "benchmarks.md").write_text("\n".join(lines))
    print("wrote docs/benchmarks.md")


def table_line(r):
    return "| " + " | ".join([r[0], r[1], r[2], r[3], r[4], r[5], f"`{r[6]}`"]) + " |"


def notes():
    path = REPO / "scripts" / "bench-notes.md"
    return [path.read_text().rstrip(), ""] if path.exists() else []


def update_report(rows):
    """Puts these rows into docs/benchmarks.md's table in place of the rows of the same number (or
    after the last row), leaving every other row and the machine line as the last full run
    wrote them, and writes the notes below the table again from scripts/bench-notes.md."""
    path = REPO / "docs" / "benchmarks.md"
    lines = path.read_text().splitlines()
    table = [i for i, line in enumerate(lines) if line.startswith("| ")]
    for r in rows:
        key = "| " + r[0].split(" ", 1)[0] + " "
        same = [i for i in table if lines[i].startswith(key)]
        if same:
            lines[same[0]] = table_line(r)
        else:
            lines.insert(table[-1] + 1, table_line(r))
            table.append(table[-1] + 1)
    method = next(i for i, line in enumerate(lines) if line.startswith("Method:"))
    lines = lines[:method + 1] + [""] + notes()
    path.write_text("\n".join(lines))
    print(f"updated {', '.join(r[0].split(' ', 1)[0] for r in rows)} in docs/benchmarks.md")


if __name__ == "__main__":
    sys.exit(main())
