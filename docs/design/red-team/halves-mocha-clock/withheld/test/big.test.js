const assert = require("node:assert");
const { add } = require("../calc");

describe("add big", () => {
  it("big", () => {
    assert.strictEqual(add(10, 20), 30);
  });
});
