const assert = require("node:assert");
const { add } = require("../calc");

describe("add", () => {
  it("small", () => {
    assert.strictEqual(add(2, 3), 5);
  });

  it("negative", () => {
    assert.strictEqual(add(-4, 1), -3);
  });
});
