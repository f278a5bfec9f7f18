// Sharing the server's seats among the limited priority levels when they borrow and lend
// (upstream: flowcontrol/conc_alloc.go): find the one fair proportion p such that every level
// gets its target times p, clamped to its bounds, and the allocations add up to the seats there
// are. Levels whose bound binds are "insensitive" to p; the search walks the bounds in order.
export interface AllocItem {
  target: number;
  lowerBound: number;
  upperBound: number;
}

export const minTarget = 0.001;
const epsilon = 0.0000001;

/** The allocations, and the fair proportion found. Throws on an impossible problem. */
export function computeConcurrencyAllocation(requiredSum: number, classes: readonly AllocItem[]): { allocs: number[]; fairProp: number } {
  if (requiredSum < 0) throw new Error("negative sums are not supported");
  let lowSum = 0;
  let highSum = 0;
  let targetSum = 0;
  let ubMin = Number.MAX_VALUE;
  let ubMax = -Number.MAX_VALUE;
  let lbMin = Number.MAX_VALUE;
  let lbMax = -Number.MAX_VALUE;
  const relative = classes.map((item, idx) => {
    let target = item.target;
    if (item.lowerBound < 0) throw new Error(`lower bound ${idx} is ${item.lowerBound} but negative lower bounds are not allowed`);
    if (target < item.lowerBound) throw new Error(`target ${idx} is ${target}, which is below its lower bound of ${item.lowerBound}`);
    if (item.upperBound < item.lowerBound) throw new Error(`upper bound ${idx} is ${item.upperBound} but should not be less than the lower bound ${item.lowerBound}`);
    if (target < minTarget) target = minTarget;
    lowSum += item.lowerBound;
    highSum += item.upperBound;
    targetSum += target;
    const r = { target, lower: item.lowerBound / target, upper: item.upperBound / target };
    ubMin = Math.min(ubMin, r.upper);
    ubMax = Math.max(ubMax, r.upper);
    lbMin = Math.min(lbMin, r.lower);
    lbMax = Math.max(lbMax, r.lower);
    return r;
  });
  if (lbMax > 1) throw new Error(`lbRange.max-1=${lbMax - 1}, which is impossible because lbRange.max can not be greater than 1`);
  if (lowSum - requiredSum > epsilon) throw new Error(`lower bounds sum to ${lowSum}, which is higher than the required sum of ${requiredSum}`);
  if (requiredSum - highSum > epsilon) throw new Error(`upper bounds sum to ${highSum}, which is lower than the required sum of ${requiredSum}`);
  if (requiredSum === 0) return { allocs: classes.map(() => 0), fairProp: 0 };
  if (lowSum - requiredSum > -epsilon) return { allocs: classes.map((c) => c.lowerBound), fairProp: lbMin };
  if (requiredSum - highSum > -epsilon) return { allocs: classes.map((c) => c.upperBound), fairProp: ubMax };
  let fairProp = requiredSum / targetSum;
  if (lbMax <= fairProp && fairProp <= ubMin) return { allocs: relative.map((r) => r.target * fairProp), fairProp };
  // Every bound, as a proportion, in ascending order: crossing a lower bound makes its class
  // follow p, crossing an upper bound stops it.
  const bounds = relative.flatMap((r, idx) => [
    { prop: r.lower, idx, lower: true },
    { prop: r.upper, idx, lower: false },
  ]);
  bounds.sort((a, b) => a.prop - b.prop);
  let sumSoFar = lowSum;
  fairProp = lbMin;
  let sensitiveTargetSum = 0;
  let deltaSensitiveTargetSum = 0;
  let sensitiveClasses = 0;
  let deltaSensitiveClasses = 0;
  let nextIdx = 0;
  while (sumSoFar < requiredSum) {
    let nextBound: number;
    for (;;) {
      sensitiveTargetSum += deltaSensitiveTargetSum;
      sensitiveClasses += deltaSensitiveClasses;
      if (nextIdx >= bounds.length) throw new Error("impossible: ran out of bounds to consider in bound-constrained problem");
      const b = bounds[nextIdx++]!;
      nextBound = b.prop;
      deltaSensitiveTargetSum = b.lower ? relative[b.idx]!.target : -relative[b.idx]!.target;
      deltaSensitiveClasses = b.lower ? 1 : -1;
      if (nextBound > fairProp) break;
    }
    if (sensitiveClasses === 0) {
      fairProp = nextBound;
      continue;
    }
    const nextProp = fairProp + (requiredSum - sumSoFar) / sensitiveTargetSum;
    if (nextProp <= nextBound) {
      fairProp = nextProp;
      break;
    }
    sumSoFar += (nextBound - fairProp) * sensitiveTargetSum;
    fairProp = nextBound;
  }
  return { allocs: classes.map((c, idx) => Math.max(c.lowerBound, Math.min(c.upperBound, fairProp * relative[idx]!.target))), fairProp };
}
