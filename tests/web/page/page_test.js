#!/usr/bin/env node
// The page (build-web/attn-tutor.html) in Debian's chromium, driven by playwright-core (which downloads
// no browser: it is pointed at /usr/bin/chromium), opened from file:// with the network off. Every lesson
// with its default options must show the native binary's tensors byte for byte; a shared URL must
// reproduce its settings; the zh page must hold no English prose; a heatmap cell's hover box must say
// its tokens, value and state; check and verify must give their verdicts; downloads must be the native
// bytes; no request may leave the page and no CSP violation may happen; at 390 px the document must be no
// wider than the viewport. Screenshots and timings go to OUT_DIR (CI keeps them as artifacts).
// Usage: node page_test.js NATIVE_EXE PAGE_HTML OUT_DIR [--only TEXT]
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');
const os = require('os');
const { nativeRunner, tally, check, englishRuns, ready, visibleText, outputs, nativeOutputCount, inOrder,
        treeRss, writeRepeated } = require('./helpers');

const [nativeExe, pageHtml, outDir] = process.argv.slice(2);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : '';
if (!outDir) {
  process.stderr.write('usage: node page_test.js NATIVE_EXE PAGE_HTML OUT_DIR [--only TEXT]\n');
  process.exit(2);
}
const repo = path.resolve(__dirname, '..', '..', '..');
const pageUrl = 'file://' + path.resolve(pageHtml);
const native = nativeRunner(nativeExe);
fs.mkdirSync(outDir, { recursive: true });

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--disable-features=Translate,MediaRouter,OptimizationHints'],
  });
  const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const requests = [], violations = [], pageErrors = [];
  const watch = (page) => {
    page.on('request', (r) => { if (!r.url().startsWith(pageUrl.split('#')[0]) && !r.url().startsWith('blob:')) requests.push(r.url()); });
    page.on('websocket', (w) => requests.push(w.url()));
    page.on('console', (m) => { if (/Content.Security.Policy|Refused/i.test(m.text())) violations.push(m.text()); });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
  };
  context.on('request', (r) => { if (!/^(file|blob|data):/.test(r.url())) requests.push(r.url()); });
  const page = await context.newPage();
  watch(page);
  // The page's own record of what its CSP refused (where, and which directive), and of how many bytes
  // of a file (a Blob) it read at once.
  await page.addInitScript(() => {
    window.attnBlobReads = [];
    for (const how of ['arrayBuffer', 'text', 'stream']) {
      const original = Blob.prototype[how];
      Blob.prototype[how] = function (...args) { window.attnBlobReads.push(this.size); return original.apply(this, args); };
    }
    document.addEventListener('securitypolicyviolation', (e) => {
      console.log('Refused (securitypolicyviolation): ' + e.violatedDirective + ' ' + e.blockedURI + ' at ' +
                  e.sourceFile + ':' + e.lineNumber + ' ' + (e.sample || ''));
    });
  });
  const timings = {};

  // 1. The first open: causal-mask after torch.manual_seed(123), its tensors the native ones.
  if (process.env.VERBOSE) console.log('page test 1');
  const t0 = Date.now();
  await page.goto(pageUrl + '#causal-mask?seed=123&lang=en');
  await ready(page, 1);
  timings.first_render_ms = await page.evaluate(() => window.attnTutorTimings.firstRenderMs);
  timings.first_render_wall_ms = Date.now() - t0;
  {
    const texts = await outputs(page);
    const text = native(['causal-mask', '--seed', '123', '--color', 'never']).stdout;
    const html = native(['causal-mask', '--seed', '123', '--html', '-']).stdout;
    check(texts.length === nativeOutputCount(html) && texts.length > 5, `causal-mask --seed 123: ${texts.length} tensors shown, the native report has ${nativeOutputCount(html)}`);
    const missing = inOrder(texts, text);
    check(missing === null, 'causal-mask --seed 123: this tensor text is not the native output\'s:\n' + missing);
    await page.screenshot({ path: path.join(outDir, 'causal-mask-1280x800.png'), fullPage: false });
  }

  // 2. Every lesson with its default options, in English.
  if (process.env.VERBOSE) console.log('page test 2');
  const catalog = JSON.parse(native(['lessons', '--json', '--lang', 'en']).stdout);
  let renders = Number(await page.evaluate(() => document.body.dataset.renders));
  for (const lesson of catalog.lessons) {
    if (only && !lesson.name.includes(only)) continue;
    await page.evaluate((name) => { location.hash = '#' + name + '?lang=en'; }, lesson.name);
    await ready(page, ++renders);
    const texts = await outputs(page);
    const text = native([lesson.name, '--lang', 'en', '--color', 'never']).stdout;
    const count = nativeOutputCount(native([lesson.name, '--lang', 'en', '--html', '-']).stdout);
    check(texts.length === count, `${lesson.name}: ${texts.length} tensors shown, the native report has ${count}`);
    const missing = inOrder(texts, text);
    check(missing === null, `${lesson.name}: this tensor text is not the native output's:\n${missing}`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    check(wide <= 0, `${lesson.name} at 1280 px: the document is ${wide} px wider than the viewport`);
  }

  // 3. An option change re-renders (timed), and the CLI's own error for a bad value, in both languages.
  if (process.env.VERBOSE) console.log('page test 3');
  {
    await page.evaluate(() => { location.hash = '#mha?lang=en'; });
    await ready(page, ++renders);
    await page.fill('#opt--seed', '7');
    await page.press('#opt--seed', 'Tab');
    await ready(page, ++renders);
    const ms = await page.evaluate(() => window.attnTutorTimings.renders.slice(-1)[0]);
    timings.rerender_mha_seed_ms = ms;
    const texts = await outputs(page);
    check(inOrder(texts, native(['mha', '--seed', '7', '--color', 'never']).stdout) === null, 'mha after --seed 7 in the form: not the native tensors');
    check((await page.evaluate(() => location.hash)).includes('seed=7'), 'mha: the URL does not hold seed=7 after the change');
    // Ten more re-renders, for the median.
    const more = [];
    for (let s = 10; s < 20; ++s) {
      await page.fill('#opt--seed', String(s));
      await page.press('#opt--seed', 'Tab');
      await ready(page, ++renders);
      more.push(await page.evaluate(() => window.attnTutorTimings.renders.slice(-1)[0]));
    }
    more.sort((a, b) => a - b);
    timings.rerender_mha_median_ms = more[5];
    await page.fill('#opt--num-heads', '3');
    await page.press('#opt--num-heads', 'Tab');
    await ready(page, ++renders);
    const shown = await page.$eval('#error pre', (e) => e.textContent).catch(() => '');
    const err = native(['mha', '--seed', '19', '--num-heads', '3', '--lang', 'en', '--html', '-'], { allowFail: true });
    check(err.status === 2 && shown === err.stderr.trimEnd(), `mha --num-heads 3: the page says ${JSON.stringify(shown)}, the CLI ${JSON.stringify(err.stderr)}`);
    check((await outputs(page)).length === 0, 'mha --num-heads 3: the tensors of the settings before are still shown under the error');
  }

  // 4. A shared URL: lesson, options, language and cell.
  if (process.env.VERBOSE) console.log('page test 4');
  {
    await page.evaluate(() => { location.hash = '#mha?seed=7&lang=zh&cell=5'; });
    await ready(page, ++renders);
    const seed = await page.$eval('#opt--seed', (e) => e.value);
    const lang = await page.evaluate(() => document.documentElement.lang);
    const current = await page.$eval('.cell.current', (e) => e.dataset.cell).catch(() => '');
    check(seed === '7' && lang === 'zh-CN' && current === '5', `#mha?seed=7&lang=zh&cell=5 shows seed ${seed}, lang ${lang}, cell ${current}`);
    const missing = inOrder(await outputs(page), native(['mha', '--seed', '7', '--lang', 'zh', '--color', 'never']).stdout);
    check(missing === null, '#mha?seed=7&lang=zh: not the native tensors: ' + missing);
    const visible = await visibleText(page);
    // The tokens are the learner's data (the report's meta line names them), not prose.
    const runs = englishRuns(visible.split('Your journey starts with one step').join(' , '));
    check(runs.length === 0, 'the zh page holds English prose: ' + JSON.stringify(runs.slice(0, 8)));
    await page.screenshot({ path: path.join(outDir, 'mha-zh-1280x800.png') });
    const zhViews = [['#kv-memory?lang=zh&window=1024&latent-dim=512', null], ['#check?lang=zh', 'tests/fixtures/mistakes/dropout-on-scores.json'],
                     ['#verify?lang=zh', '#verify-run'], ['#gqa?lang=zh', null], ['#d2l-mha?lang=zh', null]];
    for (const [hash, then] of zhViews) {
      await page.evaluate((h) => { location.hash = h; }, hash);
      await ready(page, ++renders);
      if (then && then.startsWith('#')) await page.click(then);
      else if (then) await page.setInputFiles('#check-file', path.join(repo, then));
      if (then) await ready(page, ++renders);
      const text = await visibleText(page);
      const found = englishRuns(text.split('Your journey starts with one step').join(' , '));
      check(found.length === 0, `the zh page ${hash} holds English prose: ${JSON.stringify(found.slice(0, 6))}`);
      check(text.length > 500, `the zh page ${hash} shows almost nothing`);
    }
    await page.evaluate(() => { location.hash = '#mha?lang=zh&num-heads=3'; });
    await ready(page, ++renders);
    const shownZh = await page.$eval('#error pre', (e) => e.textContent).catch(() => '');
    const errZh = native(['mha', '--num-heads', '3', '--lang', 'zh', '--html', '-'], { allowFail: true });
    check(errZh.status === 2 && shownZh === errZh.stderr.trimEnd(), `mha --num-heads 3 in zh: the page says ${JSON.stringify(shownZh)}`);
  }

  // 5. Stepping with keys, the position in the URL.
  if (process.env.VERBOSE) console.log('page test 5');
  {
    await page.evaluate(() => { location.hash = '#causal-mask?lang=en'; });
    await ready(page, ++renders);
    await page.focus('#view');
    await page.keyboard.press('n');
    await page.keyboard.press(' ');
    let cell = await page.$eval('.cell.current', (e) => e.dataset.cell);
    check(cell === '3' && (await page.evaluate(() => location.hash)).includes('cell=3'), `n, space: at cell ${cell}, URL ${await page.evaluate(() => location.hash)}`);
    await page.keyboard.press('b');
    cell = await page.$eval('.cell.current', (e) => e.dataset.cell);
    check(cell === '2', `b: at cell ${cell}, expected 2`);
    await page.keyboard.press('End');
    const last = await page.$$eval('.cell', (els) => els[els.length - 1].dataset.cell);
    cell = await page.$eval('.cell.current', (e) => e.dataset.cell);
    check(cell === last, `End: at cell ${cell}, the last is ${last}`);
    await page.keyboard.press('Home');
    cell = await page.$eval('.cell.current', (e) => e.dataset.cell);
    check(cell === '1', `Home: at cell ${cell}`);
    await page.click('#next');
    cell = await page.$eval('.cell.current', (e) => e.dataset.cell);
    check(cell === '2', `the Next button: at cell ${cell}`);
    // --from as a section.
    await page.evaluate(() => { location.hash = '#dropout?lang=en&from=3.5.3'; });
    await ready(page, ++renders);
    const fromCell = await page.$eval('.cell.current', (e) => e.dataset.cell);
    const expected = native(['dropout', '--from', '3.5.3', '--color', 'never']).stdout.match(/In \[(\d+)\]/);
    check(expected && fromCell === expected[1], `from=3.5.3: at cell ${fromCell}, the CLI's --from starts at ${expected && expected[1]}`);
  }

  // 6. Hover over heatmap cells: tokens, value and state, per head.
  if (process.env.VERBOSE) console.log('page test 6');
  {
    await page.evaluate(() => { location.hash = '#dropout?lang=en&seed=123'; });
    await ready(page, ++renders);
    const tokens = ['Your', 'journey', 'starts', 'with', 'one', 'step'];
    for (const state of ['masked', 'dropped', 'kept']) {
      const rect = await page.$(`#report svg rect[data-state=${state}]`);
      check(rect !== null, `dropout: no heatmap cell is ${state}`);
      if (!rect) continue;
      await rect.scrollIntoViewIfNeeded();
      await rect.hover();
      await page.waitForSelector('#tip:not([hidden])');
      const tip = await page.$$eval('#tip dd', (els) => els.map((e) => e.textContent));
      const truth = await rect.evaluate((r) => {
        const svg = r.ownerSVGElement;
        const rects = Array.from(svg.querySelectorAll('rect[data-v]'));
        const i = rects.indexOf(r), cols = Number(svg.getAttribute('data-side')) || Math.sqrt(rects.length);
        const shown = r.nextElementSibling && r.nextElementSibling.textContent;
        return { row: Math.floor(i / cols), col: i % cols, shown, v: r.dataset.v };
      });
      const stateText = catalog.ui['page.tip_' + state];
      check(tip.includes(tokens[truth.row]) && tip.includes(tokens[truth.col]) && tip.includes(truth.v) &&
            truth.shown.endsWith(truth.v) && tip.includes(stateText),
            `dropout hover on a ${state} cell (${truth.row}, ${truth.col}) shows ${JSON.stringify(tip)}`);
    }
    // The keyboard alone: a picture takes the focus, the arrows walk its cells.
    await page.focus('#report svg[tabindex]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const keyed = await page.$$eval('#tip dd', (els) => els.map((e) => e.textContent));
    const want = await page.$eval('#report svg[tabindex]', (svg) => {
      const r = svg.querySelectorAll('rect[data-v]')[1 + Number(svg.dataset.side)];
      return [r.dataset.q, r.dataset.k, r.dataset.v];
    });
    check(!(await page.$eval('#tip', (t) => t.hidden)) && want.every((w) => keyed.includes(w)),
          `keyboard on a heatmap (right, down): the box says ${JSON.stringify(keyed)}, the cell is ${JSON.stringify(want)}`);
    await page.evaluate(() => { location.hash = '#mha?lang=en'; });
    await ready(page, ++renders);
    const heads = await page.$$eval('#report .grid', (grids) => grids.map((g) => (g.querySelector('.grid-caption') || {}).textContent));
    const rect = await page.$('#report .grid:nth-child(2) rect[data-v]');
    if (rect) {
      await rect.scrollIntoViewIfNeeded();
      await rect.hover();
      const tip = await page.$$eval('#tip dd', (els) => els.map((e) => e.textContent));
      check(tip.includes(heads[1]), `mha hover names the head: ${JSON.stringify(tip)} (grid ${heads[1]})`);
    } else check(false, 'mha: no second grid');
    await page.evaluate(() => { location.hash = '#softmax?lang=en'; });
    await ready(page, ++renders);
    const bar = await page.$('#report rect.bar[data-v]');
    check(bar !== null, 'softmax: no bars for the 1-D weights');
    if (bar) {
      await bar.scrollIntoViewIfNeeded();
      await bar.hover({ force: true, position: { x: 1, y: 1 } });
      const tip = await page.$$eval('#tip dd', (els) => els.map((e) => e.textContent));
      const v = await bar.evaluate((r) => [r.dataset.k, r.dataset.v]);
      check(tip.includes(v[0]) && tip.includes(v[1]), `softmax bar hover: ${JSON.stringify(tip)} for ${v}`);
    }
  }

  // 7. Downloads: the native bytes.
  if (process.env.VERBOSE) console.log('page test 7');
  {
    await page.evaluate(() => { location.hash = '#causal-mask?seed=123&lang=en'; });
    await ready(page, ++renders);
    for (const [kind, flag] of [['py', '--py'], ['ipynb', '--ipynb'], ['json', '--json'], ['html', '--html']]) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-download=${kind}]`)]);
      const file = path.join(outDir, 'download.' + kind);
      await download.saveAs(file);
      const got = fs.readFileSync(file, 'utf8');
      const want = native(['causal-mask', '--seed', '123', '--lang', 'en', flag, '-']).stdout;
      check(got === want && download.suggestedFilename() === 'causal-mask.' + kind,
            `download ${kind}: ${download.suggestedFilename()}, ${got.length} bytes, native ${want.length}`);
    }
  }

  // 8. check: a mistake's verdict with the differing entries marked in both tensors; a correct export.
  if (process.env.VERBOSE) console.log('page test 8');
  {
    await page.evaluate(() => { location.hash = '#check?lang=en'; });
    await ready(page, ++renders);
    const fixture = path.join(repo, 'tests/fixtures/mistakes/dropout-on-scores.json');
    await page.setInputFiles('#check-file', fixture);
    await ready(page, ++renders);
    const exit = await page.evaluate(() => document.body.dataset.exit);
    const yours = await page.$$eval('#report pre.yours mark', (m) => m.length).catch(() => 0);
    const ours = await page.$$eval('#report pre.ours mark', (m) => m.length).catch(() => 0);
    const text = await page.$eval('#report', (e) => e.textContent);
    check(exit === '1' && yours === 24 && ours === 24 && text.includes('dropout on the scores before softmax'),
          `check dropout-on-scores: exit ${exit}, ${yours} and ${ours} entries marked`);
    await page.setViewportSize({ width: 390, height: 844 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    check(wide <= 0, `check at 390 px: the document is ${wide} px wider than the viewport`);
    await page.screenshot({ path: path.join(outDir, 'check-390x844.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(outDir, 'check-1280x800.png') });
    await page.setInputFiles('#check-file', path.join(repo, 'tests/fixtures/mistakes/correct-mha.json'));
    await ready(page, ++renders);
    check((await page.evaluate(() => document.body.dataset.exit)) === '0', 'check correct-mha: not exit 0');
    const bad = path.join(outDir, 'not-json.json');
    fs.writeFileSync(bad, '{"schema": ');
    await page.setInputFiles('#check-file', bad);
    await ready(page, ++renders);
    const shown = await page.$eval('#error pre', (e) => e.textContent).catch(() => '');
    const err = native(['check', bad, '--lang', 'en', '--html', '-'], { allowFail: true });
    check(err.status === 2 && shown === err.stderr.trimEnd().replace(bad, 'export.json'),
          `check on a broken file: the page says ${JSON.stringify(shown)}, the CLI ${JSON.stringify(err.stderr)}`);
  }

  // 9. verify: the table, every row a match.
  if (process.env.VERBOSE) console.log('page test 9');
  {
    await page.evaluate(() => { location.hash = '#verify?lang=en'; });
    await ready(page, ++renders);
    await page.click('#verify-run');
    await ready(page, ++renders);
    const rows = await page.$$eval('#report table.verify tr', (r) => r.length);
    const exit = await page.evaluate(() => document.body.dataset.exit);
    const text = native(['verify', '--lang', 'en']).stdout;
    const lines = text.split('\n').filter((l) => /\u2713|\u2717/.test(l)).length;
    check(exit === '0' && rows >= lines && lines > 50, `verify: exit ${exit}, ${rows} table rows, ${lines} lines in the text`);
  }

  // 10. kv-memory: a line chart with axes.
  if (process.env.VERBOSE) console.log('page test 10');
  {
    await page.evaluate(() => { location.hash = '#kv-memory?lang=en&window=1024&latent-dim=512'; });
    await ready(page, ++renders);
    const points = await page.$$eval('#report svg circle', (c) => c.length);
    const lines = await page.$$eval('#report svg polyline, #report svg path', (c) => c.length);
    check(points > 10 && lines >= 3, `kv-memory: ${points} points, ${lines} lines`);
  }

  // 11. A phone: 390 px wide, no horizontal scroll; dark mode; screenshots.
  if (process.env.VERBOSE) console.log('page test 11');
  {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const view of catalog.lessons.map((l) => l.name).concat(['kv-memory', 'verify'])) {
      await page.evaluate((v) => { location.hash = '#' + v + '?lang=zh'; }, view);
      await ready(page, ++renders);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      check(wide <= 0, `${view} at 390 px: the document is ${wide} px wider than the viewport`);
    }
    await page.evaluate(() => { location.hash = '#causal-mask?lang=en&seed=123'; });
    await ready(page, ++renders);
    await page.screenshot({ path: path.join(outDir, 'causal-mask-390x844.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    check(/rgb\((\d+), (\d+), (\d+)\)/.test(bg) && Number(bg.match(/\d+/)[0]) < 60, 'dark mode: the background is ' + bg);
    await page.screenshot({ path: path.join(outDir, 'causal-mask-dark-390x844.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  // 12. Hostile fragments: text stays text, display options are not taken from the URL.
  if (process.env.VERBOSE) console.log('page test 12');
  {
    await page.evaluate(() => { location.hash = '#causal-mask?lang=en&tokens=' + encodeURIComponent('<img src=x onerror=alert(1)> "step" </script>'); });
    await ready(page, ++renders);
    const imgs = await page.$$eval('#report img', (i) => i.length);
    const labels = await page.$$eval('#report svg text.label', (t) => t.map((e) => e.textContent).join(' '));
    check(imgs === 0 && labels.includes('<img'), `tokens with markup: ${imgs} <img> elements, labels ${labels.slice(0, 60)}`);
    await page.evaluate(() => { location.hash = '#causal-mask?lang=en&json=-&html=x&py=-'; });
    await ready(page, ++renders);
    check((await outputs(page)).length > 5, 'display options in the URL changed what the page shows');
  }

  // 13. The language toggle switches every word.
  if (process.env.VERBOSE) console.log('page test 13');
  {
    await page.evaluate(() => { location.hash = '#causal-mask?seed=5&lang=en'; });
    await ready(page, ++renders);
    await page.click('#lang-toggle');
    await ready(page, ++renders);
    const title = await page.$eval('#title', (e) => e.textContent);
    const zh = JSON.parse(native(['lessons', '--json', '--lang', 'zh']).stdout);
    check(title === zh.ui['page.title'] && (await page.evaluate(() => location.hash)).includes('lang=zh'), 'the toggle did not switch to zh: ' + title);
  }

  // 14. Addresses the command line could not take as they are: the page runs nothing else instead.
  if (process.env.VERBOSE) console.log('page test 14');
  {
    const errorShown = () => page.$eval('#error:not([hidden]) pre', (e) => e.textContent).catch(() => '');
    const ui = catalog.ui;
    const nul = (where) => ui['page.err_nul'].split('{1}').join(where);
    const addresses = [
      ['#causal-mask?tokens=one%20two%00three&lang=en', nul('--tokens')],
      ['#causal-mask?seed=7%00junk&lang=en', nul('--seed')],
      ['#causal-mask%00x?lang=en', nul('causal-mask%00x')],
      ['#mha?lang=en&from=3.6%00', nul('--from')],
      ['#mah?seed=7&lang=en', native(['mah', '--seed', '7', '--lang', 'en'], { allowFail: true }).stderr.trimEnd()],
      ['#msha?lang=en', native(['msha', '--lang', 'en'], { allowFail: true }).stderr.trimEnd()],
      ['#..%2F..%2Fetc%2Fpasswd?lang=en', native(['../../etc/passwd', '--lang', 'en'], { allowFail: true }).stderr.trimEnd()],
      ['#mah?lang=zh', native(['mah', '--lang', 'zh'], { allowFail: true }).stderr.trimEnd()],
      ['#mha?sed=7&lang=en', native(['mha', '--sed', '7', '--lang', 'en', '--html', '-'], { allowFail: true }).stderr.trimEnd()],
      ['#dropout?lang=en&from=9.9', native(['dropout', '--lang', 'en', '--from', '9.9'], { allowFail: true }).stderr.trimEnd()],
      ['#bench?lang=en', ui['page.err_not_here'].split('{1}').join('bench')],
      ['#all?lang=en', ui['page.err_not_here'].split('{1}').join('all')],
      ['#lessons?lang=en', ui['page.err_not_here'].split('{1}').join('lessons')],
      ['#softmax?num-heads=3&lang=en', native(['softmax', '--num-heads', '3', '--lang', 'en', '--html', '-'], { allowFail: true }).stderr.trimEnd()],
    ];
    for (const [hash, want] of addresses) {
      await page.evaluate((h) => { location.hash = h; }, hash);
      await ready(page, ++renders);
      const shown = await errorShown();
      const tensors = (await outputs(page)).length;
      const after = await page.evaluate(() => location.hash);
      check(shown === want && !shown.includes('\n') && /^attn-tutor: error: .+[;；]/.test(shown) && tensors === 0 && after === hash,
            `${hash}: the page says ${JSON.stringify(shown)} with ${tensors} tensors (address now ${after}); the command line's kind of line is ${JSON.stringify(want)}`);
    }
    check(addresses[5][1].includes('did you mean mha?'), 'msha: the command line gives no suggestion: ' + addresses[5][1]);
    // User text as text: markup in a lesson name and in a value the command refuses.
    for (const hash of ['#' + encodeURIComponent('<img src=x onerror="window.pwned=1">') + '?lang=en',
                        '#mha?lang=en&num-heads=' + encodeURIComponent('<img src=x onerror="window.pwned=1">'),
                        '#mha?lang=en&' + encodeURIComponent('<b>x') + '=1']) {
      await page.evaluate((h) => { location.hash = h; }, hash);
      await ready(page, ++renders);
      const shown = await errorShown();
      const markup = await page.evaluate(() => document.querySelectorAll('img, b').length + (window.pwned ? 100 : 0));
      check(shown.includes('<') && markup === 0, `${hash}: ${markup} elements made of it, the page says ${JSON.stringify(shown)}`);
    }
    await page.evaluate(() => { location.hash = '#causal-mask?lang=en&seed=123'; });
    await ready(page, ++renders);
    check((await outputs(page)).length > 5 && (await errorShown()) === '', 'causal-mask after the refused addresses: not shown again');
  }

  // 15. check with huge files: never read whole, the tab within 1 GB more and never frozen 2 s.
  if (process.env.VERBOSE) console.log('page test 15');
  {
    const max = (catalog.commands.find((c) => c.name === 'check') || {}).file_bytes_max;
    check(Number.isSafeInteger(max) && max > 0, 'lessons --json: check has no file_bytes_max: ' + max);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-page-'));
    try {
      const big = path.join(dir, 'big.json'), nested = path.join(dir, 'nested.json');
      writeRepeated(big, ['{"pad": "', 'x', '"}'], 66e6);
      writeRepeated(nested, ['', '[', ''], 33e6, ']');
      const want = native(['check', big, '--lang', 'en', '--html', '-'], { allowFail: true }).stderr.trimEnd().replace(big, 'export.json');
      await page.evaluate(() => { location.hash = '#check?lang=en'; });
      await ready(page, ++renders);
      // A learner's tensor name in markup: text in the report.
      const hostile = path.join(dir, 'hostile.json');
      const doc = JSON.parse(fs.readFileSync(path.join(repo, 'tests/fixtures/mistakes/correct-mha.json'), 'utf8'));
      doc.tensors[1].name = '<img src=x onerror="window.pwned=1">';
      fs.writeFileSync(hostile, JSON.stringify(doc));
      await page.setInputFiles('#check-file', hostile);
      await ready(page, ++renders);
      const seen = await page.evaluate(() => ({ markup: document.querySelectorAll('#view img').length + (window.pwned ? 100 : 0),
                                                text: document.getElementById('view').textContent }));
      check(seen.markup === 0 && seen.text.includes('<img src=x onerror="window.pwned=1">'),
            `check with markup in a tensor name: ${seen.markup} elements made of it, the text holds it: ${seen.text.includes('<img src=x')}`);
      for (const file of [big, nested]) {
        const before = treeRss(process.pid);
        let peak = before;
        const sampler = setInterval(() => { peak = Math.max(peak, treeRss(process.pid)); }, 50);
        await page.evaluate(() => {
          window.attnBlobReads = [];
          const probe = window.attnGapProbe = { last: performance.now(), gap: 0 };
          const tick = () => { const t = performance.now(); probe.gap = Math.max(probe.gap, t - probe.last); probe.last = t; };
          probe.timer = setInterval(tick, 10);
        });
        const t = Date.now();
        await page.setInputFiles('#check-file', file);
        await ready(page, ++renders);
        const ms = Date.now() - t;
        const { gap, reads } = await page.evaluate(() => {
          clearInterval(window.attnGapProbe.timer);
          return { gap: window.attnGapProbe.gap, reads: window.attnBlobReads };
        });
        clearInterval(sampler);
        peak = Math.max(peak, treeRss(process.pid));
        const shown = await page.$eval('#error pre', (e) => e.textContent).catch(() => '');
        const name = path.basename(file, '.json');
        timings['check_' + name + '_ms'] = ms;
        timings['check_' + name + '_longest_gap_ms'] = Math.round(gap);
        timings['check_' + name + '_rss_growth_mb'] = Math.round((peak - before) / 1e6);
        check(shown === want, `check ${name} (${fs.statSync(file).size} bytes): the page says ${JSON.stringify(shown)}, the CLI ${JSON.stringify(want)}`);
        check(reads.length === 1 && reads[0] <= max + 1, `check ${name}: the page read ${JSON.stringify(reads)} bytes of it at once (at most ${max + 1})`);
        check(peak - before < 1024 * 1024 * 1024 && gap < 2000,
              `check ${name}: the browser grew by ${Math.round((peak - before) / 1e6)} MB, its longest frozen time ${Math.round(gap)} ms (at most 1 GB and 2 s)`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  // The policy itself: the page's own attempts to reach out are refused by the CSP, not only by the
  // network being off.
  {
    const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content).catch(() => '(none)');
    check(/default-src 'none'/.test(csp) && /connect-src 'none'/.test(csp) && !/'unsafe-inline'|'unsafe-eval'|\*/.test(csp),
          'the CSP is not strict: ' + csp);
    const before = violations.length;
    const tried = await page.evaluate(async () => {
      const seen = [];
      document.addEventListener('securitypolicyviolation', (e) => seen.push(e.effectiveDirective));
      try { await fetch('http://127.0.0.1:9/probe'); } catch (e) { /* refused */ }
      const img = new Image();
      img.src = 'http://127.0.0.1:9/probe.png';
      const s = document.createElement('script');
      s.textContent = 'window.injected = 1';
      document.body.append(s);
      await new Promise((r) => setTimeout(r, 300));
      return { seen, injected: window.injected === 1 };
    });
    check(tried.seen.includes('connect-src') && tried.seen.includes('img-src') && tried.seen.includes('script-src-elem') && !tried.injected,
          'the CSP did not refuse a fetch, an image and an inline script: ' + JSON.stringify(tried));
    violations.splice(before);  // these three were ours, on purpose
    for (let i = requests.length - 1; i >= 0; --i) if (requests[i].startsWith('http://127.0.0.1:9/probe')) requests.splice(i, 1);
  }

  check(requests.length === 0, 'requests left the page: ' + JSON.stringify(requests.slice(0, 5)));
  check(violations.length === 0, 'CSP violations: ' + JSON.stringify(violations.slice(0, 5)));
  check(pageErrors.length === 0, 'errors in the page: ' + JSON.stringify(pageErrors.slice(0, 5)));
  fs.writeFileSync(path.join(outDir, 'timings.json'), JSON.stringify(timings, null, 2) + '\n');
  console.log('page timings (ms): ' + JSON.stringify(timings));
  await browser.close();
  console.log(`page: ${tally.checks - tally.failures} of ${tally.checks} checks passed`);
  process.exitCode = tally.failures ? 1 : 0;
}
main().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exitCode = 1; });
