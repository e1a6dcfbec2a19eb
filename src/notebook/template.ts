// `schedlab new-notebook NAME`: a notebook in notebooks/ that opens ready to run with the
// project's tslab kernel (`npm run lab`): the import, a machine, a workload, an A/B of a patch.
import * as fs from "node:fs";
import * as path from "node:path";

/** The cells of a new notebook: markdown and TypeScript sources. */
export function notebookTemplate(title: string): object {
  const md = (s: string) => ({ cell_type: "markdown", metadata: {}, source: lines(s) });
  const code = (s: string) => ({
    cell_type: "code",
    execution_count: null,
    metadata: {},
    outputs: [],
    source: lines(s),
  });
  return {
    cells: [
      md(
        `# ${title}\n\nA schedlab experiment: a machine, a kernel era, a workload and patches as variants.`,
      ),
      code(`import { patch, plot, topology, workload } from "schedlab";

const exp = topology("core2-2x2").era("6.19").workload(workload.hogs({ n: 3, cpus: [0], seconds: 0.2 }));
console.log(exp.spec().workload);`),
      md("## A patch, compared with the baseline over a few seeds"),
      code(`const longer = patch("slice x2").tunable("sched_min_granularity_ns", 1_500_000);
const res = await exp.variants({ pre: [], post: [longer] }).run({ iterations: 3 });
console.log(res.compareText("sched.contextSwitches"));
plot.display(res.plot.box("sched.contextSwitches", { title: "context switches" }));`),
    ],
    metadata: {
      kernelspec: { display_name: "TypeScript (tslab)", language: "typescript", name: "tslab" },
      language_info: { file_extension: ".ts", mimetype: "text/typescript", name: "typescript" },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

function lines(s: string): string[] {
  return s.split(/(?<=\n)/);
}

/**
 * Writes `dir/NAME.ipynb` from the template; refuses a name that is not a plain file name or a
 * notebook that exists. Returns the path written.
 */
export function newNotebook(name: string, dir: string): string {
  const base = name.endsWith(".ipynb") ? name.slice(0, -6) : name;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(base))
    throw new Error(
      `new-notebook: NAME must be a plain file name of letters, digits, '.', '_' or '-' (got ${JSON.stringify(name)})`,
    );
  const file = path.join(dir, `${base}.ipynb`);
  if (fs.existsSync(file)) throw new Error(`new-notebook: ${file} exists; pick another NAME`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(notebookTemplate(base), null, 1)}\n`, { flag: "wx" });
  return file;
}
