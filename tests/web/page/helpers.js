// The page test's helpers: the native binary's output, the tally of checks, the English-prose rule,
// waiting for a render, and reading the page's tensors and visible text (tests/web/page/page_test.js).
'use strict';
const { execFileSync } = require('child_process');

// native(args): the native binary's stdout (it must exit 0 unless allowFail), stderr and exit code.
function nativeRunner(nativeExe) {
  const env = { ...process.env, LANG: 'C.UTF-8', LC_ALL: '' };
  return (args, { allowFail = false } = {}) => {
    try {
      return { status: 0, stdout: execFileSync(nativeExe, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env }), stderr: '' };
    } catch (e) {
      if (!allowFail) throw e;
      return { status: e.status, stdout: e.stdout, stderr: e.stderr };
    }
  };
}

const tally = { failures: 0, checks: 0 };
function check(ok, what) {
  ++tally.checks;
  if (!ok) {
    ++tally.failures;
    console.log('FAIL: ' + what);
  }
}

// The rule of tests/english_prose.h, for the page's visible text: three or more consecutive prose words
// (lower case after an optional capital, two or more letters) outside code, quotes and tensors.
const PY_WORDS = new Set(['for', 'in', 'if', 'not', 'return', 'print', 'range', 'none', 'true', 'false', 'and', 'or',
  'is', 'def', 'class', 'self', 'import', 'from', 'as', 'with', 'else', 'lambda', 'len', 'a', 'i']);
function englishRuns(text) {
  const found = [];
  for (const line of text.split('\n')) {
    const bare = line.replace(/`[^`]*`|"[^"]*"|“[^”]*”/g, ' , ');
    let run = [], counted = 0;
    const end = () => { if (counted >= 3) found.push(run.join(' ')); run = []; counted = 0; };
    for (const raw of bare.split(/\s+/)) {
      if (!raw) continue;
      const word = raw.replace(/^[(\[]/, '').replace(/[)\].,:;!?']*$/, '');
      const prose = /^[A-Za-z]?[a-z]+('[a-z]+)?$/.test(word) && word.length >= 2;
      const py = PY_WORDS.has(word.toLowerCase());
      if (prose || py) {
        run.push(word);
        if (prose && !py) ++counted;
        if (/[,;:]$/.test(raw)) end();
      } else end();
    }
    end();
  }
  return found;
}

// Waits for render number `renders` to be done, and fails if more happened than the test caused.
async function ready(page, renders) {
  await page.waitForFunction((n) => document.body.dataset.state === 'ready' && Number(document.body.dataset.renders || 0) >= n,
    renders, { timeout: 30000 }).catch(async (e) => {
    throw new Error(`waiting for render ${renders} (at ${await page.evaluate(() => document.body.dataset.renders + ' ' + location.hash)}): ${e.message}`);
  });
  const done = Number(await page.evaluate(() => document.body.dataset.renders));
  check(done === renders, `render ${done} where the test expected ${renders} (${await page.evaluate(() => location.hash)})`);
}
// The text a reader sees outside code, tensors and pictures (and the picker's and fields' words).
const visibleText = (page) => page.evaluate(() => {
  const skip = new Set(['PRE', 'CODE', 'SCRIPT', 'STYLE', 'TEXTAREA', 'svg', 'OPTION', 'SELECT']);
  const parts = [];
  const walk = (n) => {
    if (n.nodeType === 3) { parts.push(n.textContent); return; }
    if (n.nodeType !== 1 || skip.has(n.tagName) || n.hidden) return;
    if (n.tagName === 'INPUT' || n.tagName === 'TEXTAREA') return;
    const s = getComputedStyle(n);
    if (s.display === 'none' || s.visibility === 'hidden') return;
    for (const c of n.childNodes) walk(c);
    if (/^(P|DIV|LI|H\d|TD|TH|LABEL|SPAN|BUTTON|LEGEND|DT|DD|FIGCAPTION|A|NAV|FIELDSET)$/.test(n.tagName)) parts.push('\n');
  };
  walk(document.body);
  const labels = Array.from(document.querySelectorAll('option, optgroup')).map((o) => o.label || o.textContent);
  const placeholders = Array.from(document.querySelectorAll('[placeholder]')).map((e) => e.placeholder);
  return parts.join('') + '\n' + labels.join('\n') + '\n' + placeholders.join('\n') + '\n' + document.title;
});

const outputs = (page) => page.$$eval('#report pre.out', (els) => els.map((e) => e.textContent));
const nativeOutputCount = (html) => (html.match(/<pre class="out">/g) || []).length;

// Each of the page's tensor texts, in order, is in the native text output, in order.
function inOrder(texts, nativeText) {
  let at = 0;
  for (const t of texts) {
    const i = nativeText.indexOf(t, at);
    if (i < 0) return t;
    at = i + t.length;
  }
  return null;
}

// The resident memory (bytes, from /proc) of every process below `root`: the browser and its tabs.
function treeRss(root) {
  const fs = require('fs');
  const children = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat;
    try { stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch (e) { continue; }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(pid));
  }
  let total = 0;
  const walk = (pid) => {
    for (const c of children.get(pid) || []) {
      try {
        const m = fs.readFileSync(`/proc/${c}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
        if (m) total += Number(m[1]) * 1024;
      } catch (e) { /* gone */ }
      walk(c);
    }
  };
  walk(root);
  return total;
}

// Writes head + `count` times `unit` + tail [+ `count` times `closing`] to `file`, in 1 MB pieces.
function writeRepeated(file, [head, unit, tail], count, closing = '') {
  const fs = require('fs');
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, head);
  for (const u of closing ? [unit, closing] : [unit]) {
    const piece = u.repeat(1e6);
    for (let left = count; left > 0; left -= 1e6) fs.writeSync(fd, left >= 1e6 ? piece : u.repeat(left));
  }
  fs.writeSync(fd, tail);
  fs.closeSync(fd);
}

module.exports = { nativeRunner, tally, check, englishRuns, ready, visibleText, outputs, nativeOutputCount, inOrder,
                   treeRss, writeRepeated };
