#!/bin/bash
# usage: try.sh NAME PROJDIR_TEMPLATE AGENT_SCRIPT [withheld_dir]
# PROJDIR_TEMPLATE: a folder whose files form the repo
set -e
top=$(cd "$(dirname "$0")/../../.." && pwd)
name=$1; tmpl=$(realpath "$2"); agent=$(realpath "$3"); withheld=${4:+$(realpath "$4")}
export PATH=${TOOLS_DIR:-$HOME/.cache/speccoder-tools}/bin:$PATH
D=$(mktemp -d "${TMPDIR:-/tmp}/red-team-$name-XXXX")
mkdir -p $D/repo; cp -a $tmpl/. $D/repo/
cat > $D/agent.sh <<A
#!/bin/sh
cat >/dev/null
sh "\$AGENT_SCRIPT"
echo Done.
A
cp $agent $D/agent-script.sh
cat > $D/repo/$SUB/speccoder.toml <<T
[executor]
kind = "command"
argv = ["sh", "$D/agent.sh"]
timeout_secs = 120

[attempt]
max_attempts = 1
$EXTRA
T
cat > $D/user.toml <<T
[attempt]
agent_env = ["AGENT_SCRIPT"]
$USEREXTRA
T
printf '# Tasks\n\n- [ ] T1 Do it\n' > $D/repo/$SUB/tasks.md
cd $D/repo; git init -q --initial-branch=main; git add -A; git -c user.name=t -c user.email=t@t commit -qm base
echo '{"task": {"id": "T1", "title": "Do it"}, "story": "s", "plan": "p", "constitution": "c"}' > $D/bundle.json
args=(attempt --json --bundle $D/bundle.json)
[ -n "$withheld" ] && args+=(--withheld $withheld)
AGENT_SCRIPT=$D/agent-script.sh SPECCODER_CONFIG=$D/user.toml GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
  SPECCODER_CACHE_DIR=/tmp/speccoder-test-cache XDG_STATE_HOME=/tmp/speccoder-test-state \
  ${SPECCODER:-$top/target/debug/speccoder} -C $D/repo/$SUB "${args[@]}" > $D/story.json 2>$D/stderr || true
python3 - $D/story.json <<'P'
import json,sys
try: s=json.load(open(sys.argv[1]))
except Exception as e: print("NO STORY", e); sys.exit()
a=(s.get("attempts") or [{}])[-1]
print("VERDICT", s.get("verdict"), "| findings", json.dumps(a.get("findings"))[:600], "| reason", str(a.get("reason"))[:300])
for c in a.get("checks") or []: print("  check", c.get("pass"), json.dumps(c.get("tests"))[:400])
print("  notes", json.dumps(s.get("notes"))[:300])
P
echo "dir $D"
