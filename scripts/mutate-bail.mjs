// Test reporter for mutation runs (scripts/mutate-tests.js): exit at the first failing test, as the
// mutant is then killed and the rest of the tests would only cost time.
export default async function* bail(source) {
  for await (const ev of source) {
    if (ev.type === "test:fail" && !ev.data.todo) process.exit(1);
  }
  yield ""; // a reporter is a generator of output; this one prints nothing
}
