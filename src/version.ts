// The package version, embedded in every result and report.
// eslint-disable-next-line @typescript-eslint/no-var-requires
export const VERSION: string = (require("../package.json") as { version: string }).version;
