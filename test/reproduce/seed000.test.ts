import { test } from "node:test";
import assert from "node:assert/strict";
import { reproduction, type LedgerRow, type Machine } from "../../src/index";
import { expandReproductionIds } from "../../src/reproduce/registry";
import { throughputRatios } from "../../src/reproduce/seed000";
import { ledgerRow, quickRun } from "../support/reproduce";

const sim = (rows: readonly LedgerRow[], metric: string, variant: string) =>
  ledgerRow(rows, metric, variant).simulated;

const x5472 = quickRun("000");
const control = quickRun("000-llc");

test("000 and 000-llc are registered; `000` on the command line names 000 itself", () => {
  assert.deepEqual(expandReproductionIds(["000"]), ["000"]);
  assert.equal(reproduction("000").machine, "xeon-x5472");
  assert.equal(reproduction("000-llc").machine, "numa-2x12x2");
});

test("000: before the patch active balances at a steady rate, after it none; the pair stays in one L2", () => {
  const { rows } = x5472;
  const abPre = sim(rows, "active_balances_per_s", "pre");
  const abPost = sim(rows, "active_balances_per_s", "post");
  assert.ok(abPre >= 10, `pre ${abPre}/s`);
  assert.ok(abPost <= abPre / 10, `post ${abPost}/s`);
  assert.ok(sim(rows, "migrations_per_s", "pre") >= 2 * abPre - 1);
  assert.equal(sim(rows, "migrations_per_s", "post"), 0);
  assert.equal(sim(rows, "pair_shares_l2_fraction", "post"), 1);
  assert.ok(sim(rows, "pair_shares_l2_fraction", "pre") < 1);
  // the patch helps: every kept iteration pair gains
  for (const r of throughputRatios(x5472.res)) assert.ok(r > 1, `ratio ${r}`);
});

test("000: before the patch the pair splits in short episodes; after it, never", () => {
  const { rows } = x5472;
  assert.ok(sim(rows, "split_episodes_per_s", "pre") >= 5);
  const p50 = sim(rows, "split_ms_p50", "pre");
  const p90 = sim(rows, "split_ms_p90", "pre");
  assert.ok(p50 >= 1 && p50 <= p90 && p90 < 100, `pre split p50 ${p50} ms, p90 ${p90} ms`);
  for (const m of ["split_episodes_per_s", "split_ms_p50", "split_ms_p90"])
    assert.equal(sim(rows, m, "post"), 0, m);
});

test("000 declares the cross-die copy rate, which sets the X5472's same_package copies; the control declares none", () => {
  const r = reproduction("000");
  assert.deepEqual(
    r
      .experiment()
      .declaredUnknowns()
      .map((u) => u.name),
    ["cross_die_copy_gbps"],
  );
  const machineAt = (v: number) => {
    const m = r.experiment().assume({ cross_die_copy_gbps: v }).spec(r.quick).machine;
    assert.ok(typeof m === "object");
    return (m as unknown as Machine).costs.copyBytesPerNs;
  };
  assert.equal(machineAt(2).same_package, 2);
  assert.equal(machineAt(2.5).shared_l2, machineAt(3).shared_l2);
  assert.deepEqual(reproduction("000-llc").experiment().declaredUnknowns(), []);
});

test("000: post/pre throughput 1.6 to 2.6 (published 2.09)", {
  todo: "the model misses: ratio ~1.09 at the full profile (pre 52.9, post 57.8 Gbit/s; 1.086-1.100 over the cross-die copy rate's whole range); with the v4.8 PELT the pair shares an L2 87% of the time before the patch, because the sync wakeup that ends a split (wake_affine's runnable_load_avg residue not positive) comes sooner; see docs/experiments/000.md",
}, () => {
  const ratio = sim(x5472.rows, "throughput_ratio", "post");
  assert.ok(ratio >= 1.6 && ratio <= 2.6, `ratio ${ratio}`);
});

test("000-llc: with a 24-CPU LLC the patch changes nothing measurable (ratio within 3% of 1)", () => {
  const ratio = sim(control.rows, "throughput_ratio", "post");
  assert.ok(Math.abs(ratio - 1) <= 0.03, `ratio ${ratio}`);
  assert.equal(
    sim(control.rows, "active_balances_per_s", "post"),
    sim(control.rows, "active_balances_per_s", "pre"),
  );
});
