// idle_cpu() while a CPU switches to idle. The kernel's __schedule sets rq->curr = next only after
// pick_next_task, and pick_next_task_fair runs newidle_balance (idle_balance before v5.x) with the
// blocking task still current, though it drops the rq lock while it balances. So idle_cpu(), whose
// first test is rq->curr != rq->idle in every era (2.6.29 to 6.19 core.c), is 0 for that CPU until
// the pick is done. The model's __schedule runs at its event's instant and clears rq.curr at
// once; Rq.currIdleAt keeps the kernel's instant, and the readers of idle_cpu() compare it with
// the running context's clock (now + chargeNs), as lockRq and the on_cpu window do.
import type { Rq } from "../sched";
import type { SchedCore } from "./api";

/** __schedule after pick_next_task chose the idle task: rq->curr = rq->idle from this context's clock. */
export function currBecomesIdle(k: SchedCore, rq: Rq): void {
  rq.currIdleAt = k.now + k.chargeNs;
}

/**
 * The part of idle_cpu() the idle bytes of the wakeup scans do not hold: rq->curr is already the
 * idle task at this context's clock.
 */
export function currIsIdleTask(k: SchedCore, cpu: number): boolean {
  return k.rqs[cpu].currIdleAt <= k.now + k.chargeNs;
}
