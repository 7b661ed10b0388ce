const { add } = require("../calc");

test("big", () => {
  expect(add(10, 20)).toBe(30);
});
