import { test } from "node:test";
import assert from "node:assert/strict";
import {
  display,
  figureHtml,
  htmlSafeJson,
  plotlyBundle,
  resetDisplay,
  scriptSafe,
} from "../../src/plot";

const fig = {
  data: [{ type: "bar", x: ["a"], y: [1], name: "</script><b>" }],
  layout: { height: 300 },
};

test("embedding escapes what could end a script element", () => {
  assert.equal(
    htmlSafeJson({ s: "</script><!--\u2028" }),
    '{"s":"\\u003c/script\\u003e\\u003c!--\\u2028"}',
  );
  assert.equal(scriptSafe('a="</SCRIPT>";b="<!--"'), 'a="\\x3C/SCRIPT>";b="\\x3C!--"');
  const html = figureHtml(fig, "f1");
  assert.match(
    html,
    /^<div id="f1" class="schedlab-figure" style="width:100%;height:300px;"><\/div>/,
  );
  assert.equal((html.match(/<\/script>/g) ?? []).length, 1);
  const bundle = plotlyBundle();
  assert.ok(bundle.length > 1_000_000 && bundle.includes("window.Plotly"));
  assert.ok(!/<\/script/i.test(bundle));
});

test("display(): plotly inlined in the first output only, through tslab's display.html", () => {
  const tslabPath = require.resolve("tslab");
  const saved = require.cache[tslabPath];
  const outputs: string[] = [];
  const fake = {
    id: tslabPath,
    filename: tslabPath,
    loaded: true,
    exports: { display: { html: (s: string) => outputs.push(s) } },
  };
  require.cache[tslabPath] = fake as unknown as NodeJS.Module;
  try {
    resetDisplay();
    display(fig);
    display([fig, fig]);
    assert.equal(outputs.length, 2);
    assert.ok(outputs[0].includes("window.Plotly = Plotly"), "bundle in the first output");
    assert.ok(!outputs[1].includes("window.Plotly = Plotly"), "not again");
    assert.equal((outputs[1].match(/class="schedlab-figure"/g) ?? []).length, 2);
  } finally {
    if (saved) require.cache[tslabPath] = saved;
    else delete require.cache[tslabPath];
    resetDisplay();
  }
});

test("display() outside a tslab kernel fails with a clear message", () => {
  assert.throws(() => display(fig), /inside a tslab Jupyter kernel/);
});
