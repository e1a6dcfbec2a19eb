// The shape of a hook's documentation record (src/kernel/hook_docs.ts holds the records).
import type { Era } from "./features";

/** The hook in some eras: the kernel's function and file there, and the model's default. */
export interface HookEraDoc {
  /** The modelled eras (ERAS) this row covers. */
  readonly eras: readonly Era[];
  /** The kernel function(s) the hook stands for, as that era names them ("-": none). */
  readonly kernel: string;
  /** Where they are in that era's tree. */
  readonly file: string;
  /** The model's default for these eras: a function name, "-" for an unnamed constant. */
  readonly model: string;
  /** The file under src/ that holds it. */
  readonly modelFile: string;
}

/** Everything a hook author needs to know about one hook. */
export interface HookDoc {
  /** The kernel function per era and the model's default per era, in era order. */
  readonly eras: readonly HookEraDoc[];
  /** The function registered as the default when it dispatches on the era itself (balancer hooks). */
  readonly dispatcher?: string;
  /** Each field of the context (ctx) the hook is called with, and what it holds. */
  readonly context: Readonly<Record<string, string>>;
  /** What the hook returns. */
  readonly returns: string;
  /** What the default does with the context. */
  readonly defaultDoes: string;
  /** A minimal replacement: what it changes, and code (imports from "schedlab" only) defining `myPatch`. */
  readonly example: { readonly what: string; readonly code: string };
}

/** The kernel (SchedCore) as every kernel-side context describes it. */
export const K_FIELD =
  "the kernel (SchedCore): k.rqs[cpu] (curr, nrRunning, cfs, rt, online, isIdle()), k.domains (domains[cpu], sdLlc, sdLlcId), k.era, k.features, k.tunables, k.now";
