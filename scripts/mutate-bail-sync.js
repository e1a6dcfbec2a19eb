// Loaded first in the mutation test bundle (scripts/mutate-tests.js): ends the process inside the
// first failing test. The bail reporter (mutate-bail.mjs) exits at the first `test:fail` event too,
// but node:test hands events to a reporter only when the event loop turns, and a set of
// synchronous tests runs to its end before that: a killed mutant paid for nearly the whole set.
// `todo` and `skip` tests are left alone (their failures do not count).
const nt = require("node:test");

const orig = nt.test;

function die(err) {
  process.stderr.write(`mutate-bail: ${err?.stack || err}\n`);
  process.exit(1);
}

function guard(fn) {
  // node:test passes a `done` callback to a function of two parameters: keep that shape.
  if (fn.length >= 2)
    return function (t, done) {
      try {
        return fn.call(this, t, (err) => (err ? die(err) : done()));
      } catch (e) {
        die(e);
      }
    };
  return function (t) {
    let r;
    try {
      r = fn.call(this, t);
    } catch (e) {
      die(e);
    }
    if (r && typeof r.then === "function") return r.then(undefined, die);
    return r;
  };
}

function test(...args) {
  const opts = args.find((a) => a && typeof a === "object");
  const i = args.findIndex((a) => typeof a === "function");
  if (i >= 0 && !(opts && (opts.todo || opts.skip))) args[i] = guard(args[i]);
  return orig.apply(this, args);
}

Object.assign(test, orig);
nt.test = test;
