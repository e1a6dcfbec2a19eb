// A readable account of what the scheduler did in one iteration.
import type { IterationResult } from "./types";
import { fairPolicyNote, isEra } from "../kernel/features";
import { eraModelNote } from "../kernel/era_model";

function fmtRec(rec: Record<string, number>, perSec: number): string {
  const keys = Object.keys(rec);
  if (keys.length === 0) return "  (none)";
  return keys
    .map(
      (k) =>
        `  ${k.padEnd(28)} ${String(rec[k]).padStart(10)}  ${(rec[k] * perSec).toFixed(1).padStart(10)}/s`,
    )
    .join("\n");
}

/** explain() text of one iteration; `era` adds the line on what the era's fair class runs. */
export function explainIteration(it: IterationResult, era?: string): string {
  const secs = it.durationNs / 1e9;
  const perSec = secs > 0 ? 1 / secs : 0;
  const s = it.sched;
  const lines: string[] = [];
  lines.push(
    `variant ${it.variant}, iteration ${it.iteration}, seed ${it.seed}, ${secs} s simulated, ${it.events} events`,
  );
  const note = isEra(era) ? fairPolicyNote(era) : null;
  if (note) lines.push(note);
  if (isEra(era)) lines.push(eraModelNote(era));
  lines.push(
    `context switches: ${s.contextSwitches} (${(s.contextSwitches * perSec).toFixed(0)}/s)`,
  );
  // results saved before these counters existed lack them
  if (s.voluntarySwitches !== undefined) {
    lines.push(
      `  voluntary ${s.voluntarySwitches} (nvcsw), involuntary ${s.involuntarySwitches} (nivcsw), out of idle ${s.contextSwitches - s.voluntarySwitches - s.involuntarySwitches}`,
      `wakeup preemptions: ${s.wakeupPreemptions} (${(s.wakeupPreemptions * perSec).toFixed(1)}/s)`,
    );
    const l = s.lagAtWakeup;
    if (l.count > 0)
      lines.push(
        `lag at wakeup (EEVDF, virtual us): ${l.count} wakeups, mean ${(l.sumNs / l.count / 1e3).toFixed(1)}, mean |lag| ${(l.sumAbsNs / l.count / 1e3).toFixed(1)}, min ${(l.minNs / 1e3).toFixed(1)}, max ${(l.maxNs / 1e3).toFixed(1)}, negative ${l.negative}`,
      );
  }
  lines.push("migrations by reason:", fmtRec(s.migrations, perSec));
  lines.push("load balance by level:");
  const levels = Object.keys(s.balance);
  if (levels.length === 0) lines.push("  (none)");
  for (const l of levels) {
    const b = s.balance[l];
    lines.push(
      `  ${l.padEnd(28)} passes ${b.passes}, balanced ${b.balanced}, failed ${b.failed}, moved ${b.tasksMoved}, active ${b.activeBalances}`,
    );
  }
  lines.push("wakeups by path:", fmtRec(s.wakePath, perSec));
  lines.push("wakeups by placement:", fmtRec(s.wakePlacement, perSec));
  const sis = s.selectIdleCpu; // absent from results saved before it was counted
  if (sis && sis.calls > 0) {
    const pct = (x: number) => ((100 * x) / sis.calls).toFixed(1);
    lines.push(
      `select_idle_cpu: ${sis.calls} scans, ${sis.scanned} CPUs scanned (${(sis.scanned / sis.calls).toFixed(2)} per scan), ${sis.failed} found no idle CPU (${pct(sis.failed)}%)`,
    );
    if (sis.nrIdleScanCalls > 0)
      lines.push(
        `  SIS_UTIL nr_idle_scan: mean ${(sis.nrIdleScanSum / sis.nrIdleScanCalls).toFixed(2)} over ${sis.nrIdleScanCalls} scans, 0 (no scan) in ${sis.nrIdleScanZero}`,
      );
  }
  lines.push("IPIs:", fmtRec(s.ipis, perSec));
  lines.push("rq locks:");
  const locks = Object.keys(s.rqLock);
  if (locks.length === 0) lines.push("  (none)");
  for (const l of locks)
    lines.push(
      `  ${l.padEnd(28)} ${s.rqLock[l].acquisitions} acquisitions, ${(s.rqLock[l].waitNs / 1e3).toFixed(1)} us waiting`,
    );
  if (Object.keys(s.other).length) lines.push("other:", fmtRec(s.other, perSec));
  lines.push("per CPU (busy %, switches):");
  lines.push(
    "  " +
      it.cpus
        .filter((c) => c.online)
        .map(
          (c) =>
            `cpu${c.cpu} ${((100 * c.busyNs) / it.durationNs).toFixed(0)}% ${c.contextSwitches}`,
        )
        .join(" | "),
  );
  return lines.join("\n");
}
