// The package version, embedded in every result and report.
// eslint-disable-next-line @typescript-eslint/no-var-requires
/** The schedlab version (from package.json), recorded in every result and report. */
export const VERSION: string = (require("../package.json") as { version: string }).version;
