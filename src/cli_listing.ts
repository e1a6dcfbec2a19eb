// The listing commands of `schedlab`: list, presets, hooks, eras and era E. Each prints text, or
// with --json one JSON value (an array of records, or one record for `era E`).
import { presetNames, preset } from "./machine/presets";
import { ERAS, isEra, type Era } from "./kernel/features";
import { eraModelNote } from "./kernel/era_model";
import { eraChanges, turnBackText, type EraChange } from "./kernel/era_changes";
import { hookDescription, hookNames } from "./kernel/hooks";
import { hooksVerboseText } from "./kernel/hook_docs_text";
import { HOOK_DOCS } from "./kernel/hook_docs";
import { reproduction, reproductionIds } from "./reproduce/registry";

/** The --json flag every listing command takes. */
export interface ListingFlags {
  json?: boolean;
}

function out(text: string): void {
  process.stdout.write(text);
}

function json(value: unknown): void {
  out(`${JSON.stringify(value, null, 2)}\n`);
}

/** `schedlab list`: the experiments that can be reproduced. */
export function listCmd(flags: ListingFlags): number {
  const rows = reproductionIds().map((id) => {
    const r = reproduction(id);
    return { id, machine: r.machine, title: r.title };
  });
  if (flags.json) json(rows);
  else for (const r of rows) out(`${r.id.padEnd(8)} ${r.machine.padEnd(14)} ${r.title}\n`);
  return 0;
}

/** `schedlab presets`: the machine presets. */
export function presetsCmd(flags: ListingFlags): number {
  const rows = presetNames().map((name) => {
    const m = preset(name);
    return { name, description: m.description, cpus: m.cpus.length };
  });
  if (flags.json) json(rows);
  else for (const r of rows) out(`${r.name.padEnd(14)} ${r.description}\n`);
  return 0;
}

/** `schedlab hooks [HOOK] [--verbose]`: the hooks a patch can replace. */
export function hooksCmd(
  hook: string | undefined,
  flags: ListingFlags & { verbose?: boolean },
): number {
  if (flags.json) {
    const names = hook === undefined ? hookNames() : [hook];
    json(
      names.map((name) => {
        const description = hookDescription(name);
        if (description === undefined)
          throw new Error(`hooks: unknown hook "${name}" (accepted: ${hookNames().join(", ")})`);
        return { name, description, ...(HOOK_DOCS as Record<string, object>)[name] };
      }),
    );
    return 0;
  }
  if (flags.verbose || hook !== undefined) {
    out(hooksVerboseText(hook));
    return 0;
  }
  for (const h of hookNames()) out(`${h.padEnd(32)} ${hookDescription(h)}\n`);
  return 0;
}

/** One change as JSON: its fields and the turn-back as code. */
function changeRecord(c: EraChange) {
  return { ...c, turnBackCode: c.turnBack.kind === "none" ? null : turnBackText(c) };
}

/** `schedlab eras`: every modelled era, with what it runs and how many later changes it holds. */
export function erasCmd(flags: ListingFlags): number {
  const rows = ERAS.map((era) => ({
    era,
    model: eraModelNote(era),
    changes: eraChanges(era).length,
  }));
  if (flags.json) json(rows);
  else
    for (const r of rows)
      out(`${r.era.padEnd(7)} ${String(r.changes).padStart(3)} changes  ${r.model}\n`);
  return 0;
}

/** The text `schedlab era E` prints. */
export function eraText(era: Era): string {
  const lines = [eraModelNote(era)];
  const changes = eraChanges(era);
  lines.push(
    `merged changes the model runs in ${era} (${changes.length}; release, commit: what; how a variant turns it back):`,
  );
  if (changes.length === 0) lines.push("  (none: the era is a baseline of its own)");
  for (const c of changes) {
    lines.push(`  ${c.release.padEnd(6)} ${c.commit}: ${c.what}`);
    lines.push(`         turn back: ${turnBackText(c)}`);
  }
  const none = changes.filter((c) => c.turnBack.kind === "none").length;
  if (none)
    lines.push(
      `${none} of them have no switch yet (the era's code runs them); docs/eras.md lists every era`,
    );
  return `${lines.join("\n")}\n`;
}

/** `schedlab era E`: the merged changes era E contains, each with its commit and switch. */
export function eraCmd(era: string, flags: ListingFlags): number {
  if (!isEra(era)) throw new Error(`era: unknown era "${era}" (accepted: ${ERAS.join(", ")})`);
  if (flags.json)
    json({ era, model: eraModelNote(era), changes: eraChanges(era).map(changeRecord) });
  else out(eraText(era));
  return 0;
}
