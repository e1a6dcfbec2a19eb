// smp_call_function_single (kernel/smp.c): an IPI whose handler runs a function on another CPU;
// the RT push irq_work and the nohz idle-balance kick use it.
import type { Rq } from "../sched";
import type { SchedCore } from "./api";
import { bump } from "../counters";
import { exitLatencyNs, IPI_AVOIDED, wakesWithoutIpi } from "./idle";

/**
 * An IPI to `rq` whose handler runs fn on that CPU (smp_call_function_single). The IPI leaves at
 * the sender's clock. A target still switching out (Rq.switchDoneAt: __schedule runs with
 * interrupts off until finish_task_switch, v2.6.29 to v6.19) takes the interrupt when the switch
 * ends, as ttwu_queue_wakelist's IPI does; a target switching to idle has not re-entered the
 * idle loop, so it is not polling yet and needs a real IPI. A switch that starts while the IPI
 * is in flight defers the handler the same way.
 */
export function smpCallFunctionSingle(k: SchedCore, rq: Rq, fn: () => void): void {
  const sent = k.now + k.chargeNs;
  const states = k.machine.idleStates;
  const poll = sent >= rq.switchDoneAt && wakesWithoutIpi(k.era, states, rq, "smp_call");
  bump(k.counters.ipis, poll ? IPI_AVOIDED.call_function_single : "call_function_single");
  if (!poll) k.chargeNs += k.machine.costs.ipiSendNs;
  let arrive = sent + (poll ? 0 : k.machine.costs.ipiDeliveryNs);
  if (arrive < rq.switchDoneAt) {
    arrive = rq.switchDoneAt;
    bump(k.counters.other, "smp_call_in_switch");
  } else arrive += exitLatencyNs(states, rq, arrive);
  const handler = (): void => {
    if (k.now < rq.switchDoneAt) {
      bump(k.counters.other, "smp_call_in_switch");
      k.at(rq.switchDoneAt, handler); // interrupts off: taken at finish_task_switch
      return;
    }
    if (!poll) rq.ipisReceived++;
    k.thisCpu = rq.cpu;
    fn();
    k.finish(rq);
  };
  k.at(arrive, handler);
}
