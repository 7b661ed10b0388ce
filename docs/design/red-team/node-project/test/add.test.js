const test = require("node:test");
const assert = require("node:assert");
const { add } = require("../calc");

test("small", () => {
  assert.strictEqual(add(2, 3), 5);
});

test("negative", () => {
  assert.strictEqual(add(-4, 1), -3);
});
