import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../src/machine/presets";
import { cpusShareCache, shareLevel, shareMatrix } from "../../src/machine/share";
import { SHARE_LEVELS } from "../../src/machine/types";

test("xeon-x5472: L2 pairs, the other die of the package, the other socket", () => {
  const m = preset("xeon-x5472");
  assert.equal(shareLevel(m, 0, 0), "same_cpu");
  assert.equal(shareLevel(m, 0, 1), "shared_l2");
  assert.equal(shareLevel(m, 0, 2), "same_package");
  assert.equal(shareLevel(m, 0, 4), "same_node");
  assert.equal(shareLevel(m, 6, 7), "shared_l2");
  assert.equal(cpusShareCache(m, 0, 1), true);
  assert.equal(cpusShareCache(m, 0, 2), false);
});

test("x86-104t: SMT siblings are N and N+52, one LLC per socket, two nodes", () => {
  const m = preset("x86-104t");
  assert.equal(shareLevel(m, 0, 52), "same_core");
  assert.equal(shareLevel(m, 0, 1), "shared_llc");
  assert.equal(shareLevel(m, 0, 77), "shared_llc");
  assert.equal(shareLevel(m, 0, 26), "other_node");
  assert.equal(shareLevel(m, 0, 78), "other_node");
  assert.equal(cpusShareCache(m, 0, 77), true);
  assert.equal(cpusShareCache(m, 0, 26), false);
});

test("ht-2x1x2: siblings (0,2) and (1,3) share a core; packages share only the node", () => {
  const m = preset("ht-2x1x2");
  assert.equal(shareLevel(m, 0, 2), "same_core");
  assert.equal(shareLevel(m, 1, 3), "same_core");
  assert.equal(shareLevel(m, 0, 1), "same_node");
});

test("shareMatrix agrees with shareLevel, is symmetric and cached", () => {
  for (const name of ["xeon-x5472", "numa-2x12x2"]) {
    const m = preset(name);
    const mat = shareMatrix(m);
    const n = m.cpus.length;
    assert.equal(mat.length, n * n);
    for (let a = 0; a < n; a++) {
      for (let b = 0; b < n; b++) {
        assert.equal(SHARE_LEVELS[mat[a * n + b]], shareLevel(m, a, b));
        assert.equal(mat[a * n + b], mat[b * n + a]);
      }
    }
    assert.equal(shareMatrix(m), mat);
  }
});

test("bad CPU ids are rejected with the accepted range", () => {
  assert.throws(
    () => shareLevel(preset("core2-2x2"), 0, 4),
    /shareLevel: b must be a CPU id in 0..3 \(got 4\)/,
  );
});
