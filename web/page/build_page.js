#!/usr/bin/env node
// Puts the page together: web/page/page.html with the stylesheet, the module's JavaScript, its
// WebAssembly (base64, in a data block that never runs) and the page's script inlined, and a
// Content-Security-Policy that allows exactly these inline pieces (by their SHA-256) and nothing
// from anywhere: no connection, no image, font or frame from outside, no form submission.
// Usage: node build_page.js PAGE_DIR MODULE_JS MODULE_WASM VERSION OUT_HTML
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const [pageDir, moduleJs, moduleWasm, version, outHtml] = process.argv.slice(2);
if (!outHtml) {
  process.stderr.write('usage: node build_page.js PAGE_DIR MODULE_JS MODULE_WASM VERSION OUT_HTML\n');
  process.exit(2);
}
const read = (file) => fs.readFileSync(file, 'utf8');

// Inline text must not close its own element early.
const inlineScript = (text) => text.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
const inlineStyle = (text) => text.replace(/<\/(style)/gi, '<\\/$1');
const sha256 = (text) => "'sha256-" + crypto.createHash('sha256').update(text, 'utf8').digest('base64') + "'";

const style = inlineStyle(read(path.join(pageDir, 'page.css')));
const moduleScript = inlineScript(read(moduleJs));
// The page's scripts, in the order they run: the module runner, the form's fields, the pictures' hover
// box, then the page, which uses the three.
const pageScripts = ['commands.js', 'form.js', 'pictures.js', 'page.js'].map((f) => inlineScript(read(path.join(pageDir, f))));
const wasm = fs.readFileSync(moduleWasm).toString('base64');

const csp = [
  "default-src 'none'",
  `script-src ${[moduleScript, ...pageScripts].map(sha256).join(' ')} 'wasm-unsafe-eval'`,
  `style-src ${sha256(style)}`,
  'img-src data: blob:',
  "connect-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
].join('; ');

const template = read(path.join(pageDir, 'page.html'));
const pieces = {
  CSP: csp, VERSION: version, STYLE: style, MODULE_SCRIPT: moduleScript, WASM_BASE64: wasm,
  PAGE_SCRIPTS: pageScripts.map((text) => '<script>' + text + '</script>').join('\n'),
};
for (const key of Object.keys(pieces)) {
  if (!template.includes('@' + key + '@')) {
    process.stderr.write(`build_page.js: page.html lacks @${key}@\n`);
    process.exit(2);
  }
}
// One pass over the template: text put in is never searched again.
const html = template.replace(/@([A-Z_0-9]+)@/g, (whole, key) => (key in pieces ? pieces[key] : whole));
const tmp = outHtml + '.tmp';
fs.writeFileSync(tmp, html);
fs.renameSync(tmp, outHtml);
