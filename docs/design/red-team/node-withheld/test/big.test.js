const test = require("node:test");
const assert = require("node:assert");
const { add } = require("../calc");

test("big", () => {
  assert.strictEqual(add(10, 20), 30);
});
