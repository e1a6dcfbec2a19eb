// The declared unknowns of seed 001: whether the published box's idle CPUs polled, and if they
// halted, how long waking one took. The thread names a "x86 machine with full threads" (104
// threads of Xeon Platinum 8269CY, a Cascade Lake part of Alibaba Cloud's sixth-generation ECS
// families, sold as VMs and as bare-metal instances) and says neither. Experiment 001 fits the
// wake time on its named calibration target, old's index (data/published/001.json), with the
// halting reading; patch1 and patch1+2 are predictions.
import type { Experiment } from "../experiment/experiment";
import { unknown } from "../experiment/declare";
import type { IdleState, Machine } from "../machine/types";

/** How the idle CPUs wait: intel_idle's MWAIT states (they poll) or a guest's HLT (it halts). */
export const SEED001_IDLE_MODES = ["mwait", "hlt"] as const;

/** The single idle state of a halting guest: HLT, woken by an IPI, exit `exitNs`. */
function hltState(exitNs: number): IdleState {
  return { name: "HLT", exitLatencyNs: exitNs, targetResidencyNs: exitNs, polling: false };
}

function hltOf(m: Machine): IdleState | undefined {
  return m.idleStates.find((s) => s.name === "HLT");
}

export const IDLE_MODE = unknown("idle_mode", {
  choices: SEED001_IDLE_MODES,
  default: "hlt",
  unit: "choice",
  description:
    "how the idle CPUs wait: intel_idle's MWAIT states, which poll (a wakeup sets need_resched, no IPI), or a guest's HLT, which halts (every wakeup of an idle CPU is an IPI)",
  source:
    "The thread (Tianchen Ding, \"sched: Queue task on wakelist in the same llc if the wakee cpu is idle\", v1-v4, May-June 2022) gives the part, Xeon Platinum 8269CY, 104 threads, and not whether the box was bare metal. The 8269CY is the processor of Alibaba Cloud's sixth-generation ECS families (Cascade Lake, 2.5 GHz, all-core turbo 3.2 GHz; Alibaba Cloud, \"Everything There Is to Know about Alibaba Cloud's Sixth-Generation ECS Instances\", 2020), offered as virtual machines and as ECS Bare Metal instances; a 104-vCPU VM and a bare-metal instance both show 104 threads. A KVM guest without exposed MWAIT idles in HLT (arch/x86/kernel/process.c default_idle), a bare-metal kernel in intel_idle's MWAIT states (drivers/idle/intel_idle.c skx_cstates, entered by mwait_idle_with_hints inside current_set_polling_and_test). The default, hlt, is a choice: most instances of those families are VMs, and patch2's own changelog measures the same +11% on an 80-thread Ampere Altra, whose idle CPUs do not poll; mwait is the preset as built (data/machines/x86-104t.json)",
  apply: (e: Experiment, v) =>
    v === "hlt"
      ? e.editMachine("idle CPUs halt (a guest's HLT)", (m) => {
          m.idleStates = [hltState(2000)];
        })
      : e,
});

export const HLT_WAKE = unknown("hlt_wake_us", {
  range: [2, 133],
  default: 2,
  unit: "us",
  description:
    "time from the IPI to a halted guest CPU to that CPU running again (VM exit on HLT, the host's wakeup of the vCPU thread, VM entry); with idle_mode mwait nothing halts and it has no effect",
  source:
    "low end: the host still halt-polls for the vCPU (KVM's halt polling, virt/kvm/kvm_main.c kvm_vcpu_block, x86 KVM_HALT_POLL_NS_DEFAULT 200 us; Documentation/virt/kvm/halt-polling.rst: polling saves a trip through the scheduler, 'normally on the order of a few micro-seconds'): an IPI delivery and a VM exit and entry, 2 us (choice, the exit latency of skx C1 in drivers/idle/intel_idle.c); high end: the host CPU under the vCPU went to its deepest state, skx C6, exit latency 133 us (intel_idle skx_cstates); between them, the host's C1E (10 us) and its scheduler path",
  apply: (e: Experiment, v) =>
    e.editMachine(`halted CPUs wake in ${v} us`, (m) => {
      const s = hltOf(m);
      if (s) {
        s.exitLatencyNs = Math.round(Number(v) * 1000);
        s.targetResidencyNs = s.exitLatencyNs;
      }
    }),
});

/** Seed 001's unknowns, in the order they apply (the mode first: the wake time edits its state). */
export const SEED001_UNKNOWNS = [IDLE_MODE, HLT_WAKE] as const;
