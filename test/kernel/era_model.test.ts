// What `schedlab domains` and explain() say an era runs (src/kernel/era_model.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  balancerOf,
  eraModelNote,
  peltOf,
  pickPolicyOf,
  wakeupOf,
} from "../../src/kernel/era_model";
import { ERAS } from "../../src/kernel/features";

test("each era names its pick policy, balancer version and wakeup depth limit", () => {
  assert.deepEqual(
    ERAS.map((e) => pickPolicyOf(e)),
    ["CFS", "CFS", "CFS", "CFS", "CFS", "CFS", "EEVDF", "EEVDF"],
  );
  assert.doesNotMatch(balancerOf("5.6"), /LB_LLC_SPREAD/);
  assert.match(balancerOf("5.10"), /5\.10 LB_LLC_SPREAD/);
  assert.doesNotMatch(balancerOf("5.10"), /LB_NEWIDLE_COST|imb_numa_nr|LB_SMT_BALANCE/);
  assert.match(balancerOf("5.19"), /5\.16 LB_NEWIDLE_COST, 5\.18 imb_numa_nr$/);
  assert.match(balancerOf("6.6"), /6\.6 LB_SMT_BALANCE, 6\.6 LB_SIBLING_IMBALANCE$/);
  assert.match(
    balancerOf("6.19"),
    /6\.6 LB_SIBLING_IMBALANCE, 6\.19 NI_RANDOM, 6\.19 LB_SERIALIZE_NEWIDLE$/,
  );
  assert.match(balancerOf("2.6.29"), /^2\.6\.29/);
  assert.match(wakeupOf("5.10"), /^5\.6 select_idle_sibling.*SIS_PROP/);
  assert.match(wakeupOf("5.19"), /SIS_PROP\)$/);
  assert.match(wakeupOf("6.6"), /SIS_UTIL\)$/);
  assert.match(eraModelNote("6.19"), /^era 6\.19: fair pick EEVDF; balancer .*; wakeup /);
});

test("each era names its PELT form; 3.19 its capacity in tasks", () => {
  assert.deepEqual(
    ERAS.map((e) => peltOf(e).split(" ").slice(0, 2).join(" ")),
    [
      "none (load",
      "v3.8 runnable_avg_sum",
      "v4.3 __update_load_avg",
      "v4.11 accumulate_sum,",
      "v4.11 accumulate_sum",
      "v4.11 accumulate_sum",
      "v4.11 accumulate_sum",
      "v4.11 accumulate_sum",
    ],
  );
  assert.match(peltOf("5.6"), /with runnable_load_avg$/);
  assert.match(balancerOf("3.19"), /sg_capacity_factor/);
  assert.doesNotMatch(balancerOf("4.8"), /sg_capacity_factor/);
  assert.match(eraModelNote("3.19"), /; PELT v3\.8 runnable_avg_sum/);
});
