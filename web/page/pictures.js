// The pictures of a report (the C++'s SVG heatmaps and bars, lib/notebook/html_maps.cpp): a box that
// says a cell's query and key tokens, its value and whether it was masked or dropped, on hover, tap or
// from the keyboard (each picture takes the focus, the arrows walk its cells). Text reaches the box
// only through textContent. `say(key)` gives the page's words in the current language.
'use strict';
function attnTutorPictures(report, tip, say) {
  function showTip(rect) {
    const dl = document.createElement('dl');
    const row = (key, value) => {
      const dt = document.createElement('dt');
      dt.textContent = say(key);
      const dd = document.createElement('dd');
      dd.textContent = value;
      dl.append(dt, dd);
    };
    const grid = rect.closest('.grid');
    const caption = grid && grid.querySelector('.grid-caption');
    if (caption) {
      const head = document.createElement('dd');
      head.className = 'head';
      head.textContent = caption.textContent;
      const blank = document.createElement('dt');
      dl.append(blank, head);
    }
    if (rect.dataset.q !== undefined) {
      row('page.tip_query', rect.dataset.q);
      row('page.tip_key', rect.dataset.k);
    } else {
      row('page.tip_token', rect.dataset.k);
    }
    row('page.tip_value', rect.dataset.v);
    if (rect.dataset.state) {
      const dt = document.createElement('dt');
      const dd = document.createElement('dd');
      dd.className = 'state';
      dd.dataset.state = rect.dataset.state;
      dd.textContent = say('page.tip_' + rect.dataset.state);
      dl.append(dt, dd);
    }
    tip.replaceChildren(dl);
    tip.hidden = false;
    const box = rect.getBoundingClientRect();
    const width = tip.offsetWidth;
    const left = Math.min(window.scrollX + box.right + 8, window.scrollX + document.documentElement.clientWidth - width - 4);
    tip.style.left = Math.max(window.scrollX + 4, left) + 'px';
    tip.style.top = (window.scrollY + box.bottom + 6) + 'px';
    for (const old of document.querySelectorAll('rect.hover')) old.classList.remove('hover');
    rect.classList.add('hover');
  }
  // The keyboard's way in: each picture takes the focus (Tab), the arrows move over its cells.
  const pictureAt = new WeakMap();
  function focusablePictures() {
    for (const svg of report.querySelectorAll('svg[data-side]')) {
      if (svg.querySelector('rect[data-v]')) svg.setAttribute('tabindex', '0');
    }
  }
  // key: an arrow moves the picture's cursor (a bar chart is one column), null shows where it is.
  function movePicture(svg, key) {
    const rects = Array.from(svg.querySelectorAll('rect[data-v]'));
    const cols = rects[0].classList.contains('bar') ? 1 : Number(svg.dataset.side) || 1;
    const step = key === null ? 0 : { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[key];
    if (step === undefined) return false;
    const to = Math.min(Math.max((pictureAt.get(svg) || 0) + step, 0), rects.length - 1);
    pictureAt.set(svg, to);
    showTip(rects[to]);
    return true;
  }
  function hideTip() {
    tip.hidden = true;
    for (const old of document.querySelectorAll('rect.hover')) old.classList.remove('hover');
  }

  return { showTip, hideTip, focusablePictures, movePicture };
}
