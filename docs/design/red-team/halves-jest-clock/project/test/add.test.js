const { add } = require("../calc");

test("small", () => {
  expect(add(2, 3)).toBe(5);
});

test("negative", () => {
  expect(add(-4, 1)).toBe(-3);
});
