import { describe } from "vitest";
import { compileErr, table } from "./e2e.testkit.js";

describe("cel.lib.ext.sets end to end", () => {
  table([
    ["sets.contains([], [])", true],
    ["sets.contains([1], [])", true],
    ["sets.contains([1], [1])", true],
    ["sets.contains([1], [1, 1])", true],
    ["sets.contains([1, 2, 3], [3, 1])", true],
    ["sets.contains([1, 2], [3])", false],
    ["sets.contains([], [1])", false],
    ["sets.contains([1, 2, 3], [dyn(1.0), dyn(2u), dyn(3)])", true],
    ["sets.contains([1, 2.0, 3u], [1])", compileErr("expected type 'int' but found 'double'")],
    ["sets.contains([[1], [2]], [[2]])", true],
    ["sets.contains([{'a': dyn(1)}], [{'a': dyn(1.0)}])", true],
    ["sets.contains([1], ['a'])", compileErr("found no matching overload for 'sets.contains' applied to '(list(int), list(string))'")],
    ["sets.contains(1, [1])", compileErr("found no matching overload for 'sets.contains' applied to '(int, list(int))'")],
    ["sets.equivalent([], [])", true],
    ["sets.equivalent([1], [1, 1])", true],
    ["sets.equivalent([1, 2, 3], [dyn(3u), dyn(2.0), dyn(1)])", true],
    ["sets.equivalent([1, 2], [2, 2, 2])", false],
    ["sets.equivalent([1], [])", false],
    ["sets.equivalent(['a'], [1])", compileErr("found no matching overload for 'sets.equivalent' applied to '(list(string), list(int))'")],
    ["sets.intersects([1], [1])", true],
    ["sets.intersects([1, 2], [2, 3])", true],
    ["sets.intersects([1], [])", false],
    ["sets.intersects([], [])", false],
    ["sets.intersects([1], [2])", false],
    ["sets.intersects([1.0], [dyn(1u)])", true],
    ["sets.intersects([1.0], [1u])", compileErr("found no matching overload for 'sets.intersects' applied to '(list(double), list(uint))'")],
    ["sets.intersects([1], 'a')", compileErr("found no matching overload for 'sets.intersects' applied to '(list(int), string)'")],
  ]);
});
