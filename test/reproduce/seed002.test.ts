import { test } from "node:test";
import assert from "node:assert/strict";
import { reproduction, runReproduction, buildKernel, preset, seeds } from "../../src/index";
import { judgeRow, verdictContext } from "../../src/reproduce/verdict";
import {
  calibrateReproduction,
  calibrationTargets,
  reproductionUnknowns,
} from "../../src/reproduce/unknowns";
import { publishedFor, reproductionAt } from "../../src/reproduce/registry";

for (const id of ["002", "002-ht"]) {
  const what =
    id === "002-ht"
      ? "the pre-patch split follows the SMT sibling slowdown"
      : "the group-power patch turns the 2:1 split into near-fair shares";
  test(`${id}: ${what}`, () => {
    const r = reproduction(id);
    const res = runReproduction(r, r.quick);
    const rows = r.rows(res);
    const row = (m: string, v: string) => rows.find((x) => x.metric === m && x.variant === v)!;
    const cvPre = row("cv_loops", "pre").simulated;
    const cvPost = row("cv_loops", "post").simulated;
    // loop_ns is calibrated on avg_loops pre (a closed form) and never judged as a prediction;
    // every other figure in band counts as reproduced after that one calibration
    const judged = rows.map((x) => judgeRow(x, verdictContext(id)));
    const target = judged.find((x) => x.metric === "avg_loops" && x.variant === "pre")!;
    assert.deepEqual([target.role, target.verdict], ["calibrated", "calibration target"]);
    assert.deepEqual(
      calibrationTargets(id).map((t) => t.id),
      ["avg_loops/pre"],
    );
    for (const x of judged.filter((j) => j.role === "predicted"))
      assert.ok(x.metric !== "avg_loops" || x.variant !== "pre");
    const inBand = judged.filter((x) => x.verdict === "reproduced after calibration");
    assert.ok(inBand.length >= 1);
    for (const x of inBand)
      assert.match(x.reason ?? "", /1 unknown fitted on other figures \(loop_ns\)/);
    assert.ok(!judged.some((x) => x.verdict === "reproduced"), "nothing counts as uncalibrated");
    assert.equal(reproductionUnknowns(id).find((u) => u.name === "loop_ns")?.calibrated, true);
    assert.match(publishedFor(id).calibration?.method ?? "", /^closed form/);
    assert.throws(() => calibrateReproduction(id), /loop_ns is fitted by a closed form/);
    if (id === "002-ht") {
      // HT box: the pre-patch 4/4 split puts 4 tasks on one core's two threads (siblings (0,2),
      // each slowed to the sibling speed s) and 4 on cpu1 alone, so per-task rates are s/2
      // and 1/4 and stddev/avg = |2s - 1| / (2s + 1): the published 2:1 (0.33) needs s near 1.
      const s = Number(r.experiment().unknownValues().smt_sibling_speed);
      assert.equal(s, preset("ht-2x1x2").costs.smtSiblingSpeed);
      const expected = Math.abs(2 * s - 1) / (2 * s + 1);
      assert.ok(Math.abs(cvPre - expected) < 0.03, `${id} pre stddev/avg ${cvPre} vs ${expected}`);
      // at the default s = 0.6 the patch makes the spread worse (the pair valued at two CPUs
      // delivers 1.2); with no sibling slowdown (s = 1) it lowers it, as published
      assert.ok(cvPost > cvPre, `${id} at s = ${s}: ${cvPre} -> ${cvPost}`);
      const fast = reproductionAt(id, { smt_sibling_speed: 1 }).runSync(r.quick);
      const [pre1, post1] = ["pre", "post"].map((v) => fast.mean("cv_loops", v));
      assert.ok(pre1 >= 0.25 && pre1 <= 0.42, `${id} at s = 1: pre ${pre1}`);
      assert.ok(post1 <= 0.15 && post1 < pre1 / 2, `${id} at s = 1: ${pre1} -> ${post1}`);
      return;
    }
    // published: 0.33 before, 0.09-0.10 after; goals 0.25..0.42 and <= 0.15
    assert.ok(cvPre >= 0.25 && cvPre <= 0.42, `${id} pre stddev/avg ${cvPre}`);
    assert.ok(cvPost <= 0.15, `${id} post stddev/avg ${cvPost}`);
    assert.ok(
      cvPost < cvPre / 2,
      `${id}: the patch at least halves the spread (${cvPre} -> ${cvPost})`,
    );
    // throughput is conserved: the average loop count does not move (within 3%)
    const aPre = row("avg_loops", "pre").simulated;
    const aPost = row("avg_loops", "post").simulated;
    assert.ok(Math.abs(aPost - aPre) / aPre < 0.03, `${id} avg ${aPre} -> ${aPost}`);
    // pre: the balancer settles on 4 tasks per package-level group and stays there
    for (const it of res.data.iterations.filter((x) => x.variant === "pre")) {
      const perCpu = [0, 0, 0, 0];
      for (const t of it.tasks) if (t.role === "child") perCpu[t.lastCpu]++;
      assert.deepEqual([...perCpu].sort(), [0, 2, 2, 4], `${id} pre placement ${perCpu}`);
    }
    // post: tasks keep rotating between the packages (that is what lowers the spread)
    const post = res.data.iterations.filter((x) => x.variant === "post");
    assert.ok(
      post.every((it) => (it.sched.migrations.load_balance ?? 0) > 100),
      "post-patch balancing keeps moving tasks",
    );
  });
}

test("the patch changes the CPU-level group power from 1024/1024 to 2048/1024", () => {
  const m = preset("core2-2x2");
  const online = [true, true, true, false];
  const base = { machine: m, online, era: "2.6.29" as const, seed: "x", trace: false };
  const pre = buildKernel({ ...base, patches: [] });
  const post = buildKernel({ ...base, patches: [seeds.groupPower2009] });
  const caps = (k: typeof pre) =>
    k.domains.domains[0].find((d) => d.level === "CPU")!.groups.map((g) => g.capacity);
  assert.deepEqual(caps(pre), [1024, 1024]);
  assert.deepEqual(caps(post), [2048, 1024]);
});
