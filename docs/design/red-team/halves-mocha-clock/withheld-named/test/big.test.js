const assert = require("node:assert");
const { add } = require("../calc");

describe("add big", () => {
  it("big", function () {
    // A test that reads its own title (a fixture named after it, a log line).
    assert.ok(this.test.title);
    assert.strictEqual(add(10, 20), 30);
  });
});
