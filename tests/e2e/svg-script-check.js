// svg-script-check.js - runs the flame graph's embedded script (click-to-zoom, search) under
// node against a minimal DOM built from the SVG file, and checks what it does:
//   node svg-script-check.js FILE.svg FRAME REGEX
// zooms into the first box named FRAME (it must fill the width, boxes outside it are hidden,
// its ancestors stay visible), resets, then searches REGEX and prints the matched share.
'use strict';
const fs = require('fs');
const [file, frame, regex] = process.argv.slice(2);
const svg = fs.readFileSync(file, 'utf8');
const script = /<!\[CDATA\[([\s\S]*?)\]\]>/.exec(svg);
if (!script) { console.error('no script in the SVG'); process.exit(1); }
const unesc = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'").replace(/&amp;/g, '&');
function el(tag, attrs, text) {
    return { tag, attrs: Object.assign({}, attrs), textContent: text, style: {}, children: [],
        getAttribute(k) { return this.attrs[k]; }, setAttribute(k, v) { this.attrs[k] = String(v); },
        getElementsByTagName(t) { return this.children.filter((c) => c.tag === t); } };
}
const attrsOf = (s) => { const a = {}; s.replace(/([\w-]+)="([^"]*)"/g, (_, k, v) => { a[k] = v; }); return a; };
const groups = [];
const re = /<g class="f" data-d="(\d+)"><title>([\s\S]*?)<\/title><rect ([^>]*)\/><text ([^>]*)>([\s\S]*?)<\/text><\/g>/g;
let m;
while ((m = re.exec(svg))) {
    const g = el('g', { 'data-d': m[1] });
    g.children.push(el('title', {}, unesc(m[2])), el('rect', attrsOf(m[3])), el('text', attrsOf(m[4]), unesc(m[5])));
    groups.push(g);
}
if (!groups.length) { console.error('no boxes'); process.exit(1); }
const ids = { unzoom: el('text', {}, 'Reset zoom'), matched: el('text', {}, '') };
ids.unzoom.style.display = 'none';
let onload = null;
const ctx = {
    document: { getElementsByClassName: () => groups, getElementById: (i) => ids[i] },
    window: { addEventListener: (ev, f) => { onload = f; } },
    prompt: () => regex, alert: (e) => { throw new Error('alert: ' + e); },
};
new Function('document', 'window', 'prompt', 'alert', script[1] + '\nthis.zoom=zoom;this.unzoom=unzoom;this.search=search;')
    .call(ctx, ctx.document, ctx.window, ctx.prompt, ctx.alert);
onload();
const name = (g) => g.children[0].textContent.replace(/ \(\d+ samples, [\d.]+%\)$/, '');
const rect = (g) => g.children[1];
const target = groups.find((g) => name(g) === frame);
if (!target) { console.error('no box named ' + frame); process.exit(1); }
const x0 = +rect(target).getAttribute('x'), w0 = +rect(target).getAttribute('width');
const d0 = +target.attrs['data-d'];
target.onclick();
const fail = (msg) => { console.error('FAIL: ' + msg); process.exit(1); };
if (Math.abs(+rect(target).getAttribute('width') - 1180) > 0.2) fail('zoomed box is not full width');
if (!/\.\.$|^[^.]/.test(target.children[2].textContent) || target.children[2].textContent === '') fail('zoomed box has no label');
let hidden = 0, ancestors = 0;
for (const g of groups) {
    const r = rect(g), d = +g.attrs['data-d'];
    if (g === target) continue;
    if (g.style.display === 'none') { hidden++; continue; }
    if (d < d0) { ancestors++; if (g.style.opacity !== '0.6') fail('ancestor not dimmed'); continue; }
    const x = +r.getAttribute('x');
    if (x < 9.9 || x + +r.getAttribute('width') > 1190.2) fail('visible box outside the zoomed range');
}
if (!hidden) fail('nothing hidden by the zoom');
if (ancestors < d0) fail('ancestors missing: ' + ancestors + ' < ' + d0);
if (ids.unzoom.style.display !== '') fail('no Reset zoom button after zooming');
ctx.unzoom();
if (Math.abs(+rect(target).getAttribute('x') - x0) > 0.2 || Math.abs(+rect(target).getAttribute('width') - w0) > 0.2) fail('unzoom did not restore the box');
if (groups.some((g) => g.style.display === 'none')) fail('unzoom left boxes hidden');
ctx.search();
const painted = groups.filter((g) => rect(g).getAttribute('fill') === 'rgb(230,0,230)').length;
console.log('zoom ok (' + hidden + ' hidden, ' + ancestors + ' ancestors); search ' + regex + ': ' + painted + ' boxes, ' + ids.matched.textContent);
