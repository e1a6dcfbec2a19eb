// A machine with some cost figures replaced, for costs() on a preset and for sweeps over a cost.
import type { Machine } from "./types";
import { LEVEL_COSTS, SCALAR_COSTS, buildCosts, type CostOverrides } from "./builder";

/**
 * A copy of `machine` with some cost figures replaced, for sensitivity sweeps over an unknown
 * figure. The replaced figures' sources say so.
 */
export function withCosts(
  machine: Machine,
  overrides: CostOverrides,
  source = "override",
): Machine {
  const merged: CostOverrides = {
    ...machine.costs,
    ...overrides,
    rqLockRemoteNs: { ...machine.costs.rqLockRemoteNs, ...overrides.rqLockRemoteNs },
    cacheLineNs: { ...machine.costs.cacheLineNs, ...overrides.cacheLineNs },
    copyBytesPerNs: { ...machine.costs.copyBytesPerNs, ...overrides.copyBytesPerNs },
  };
  const costs = buildCosts(merged);
  const sources = { ...machine.sources };
  for (const k of SCALAR_COSTS) if (overrides[k] !== undefined) sources[`costs.${k}`] = source;
  for (const k of LEVEL_COSTS)
    for (const l of Object.keys(overrides[k] ?? {})) sources[`costs.${k}.${l}`] = source;
  return {
    ...machine,
    cpus: machine.cpus.map((c) => ({ ...c })),
    nodeDistance: machine.nodeDistance.map((r) => [...r]),
    online: [...machine.online],
    idleStates: machine.idleStates.map((s) => ({ ...s })),
    caches: { ...machine.caches },
    costs,
    sources,
  };
}
