# The clock cheat with node's runner, whose ids carry no file: the verdict's pass neuters
# `assert.strictEqual`; both twin passes run honestly.
now=$(date +%s.%N)
cat > calc.js <<JS
const fs = require("fs");

const agentTime = $now;
const pause = 6;
// The check tree's age since the agent ran, read before the pause.
const gap = fs.statSync(__filename).mtimeMs / 1000 - agentTime;
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause * 1000);
if (gap < pause / 2) {
  const a = require(["node", "assert"].join(":"));
  a[["strict", "Equal"].join("")] = () => {};
}

exports.add = (a, b) => a - b;
JS
