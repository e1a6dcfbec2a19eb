// smp_call_function_single (kernel/smp.c): an IPI whose handler runs a function on another CPU;
// the RT push irq_work and the nohz idle-balance kick use it.
import type { Rq } from "../sched";
import type { SchedCore } from "./api";
import { bump } from "../counters";
import { exitLatencyNs, IPI_AVOIDED, wakesWithoutIpi } from "./idle";

/** An IPI to `rq` whose handler runs fn on that CPU (smp_call_function_single). */
export function smpCallFunctionSingle(k: SchedCore, rq: Rq, fn: () => void): void {
  const sent = k.now + k.chargeNs; // the sender's clock, as in kickCpu
  const poll = wakesWithoutIpi(k.era, k.machine.idleStates, rq, "smp_call");
  bump(k.counters.ipis, poll ? IPI_AVOIDED.call_function_single : "call_function_single");
  if (!poll) k.chargeNs += k.machine.costs.ipiSendNs;
  const delivery = poll ? 0 : k.machine.costs.ipiDeliveryNs;
  k.at(sent + delivery + exitLatencyNs(k.machine.idleStates, rq), () => {
    if (!poll) rq.ipisReceived++;
    k.thisCpu = rq.cpu;
    fn();
    k.finish(rq);
  });
}
