package testkit

import "strconv"

// What a lecturer and a student see of any frame's layout, read in one
// evaluation per page so a test over every scenario, position, frame and
// language loads each page once: whether the frame's point is on the first
// screen, whether anything is cut, scrolls or overlaps, where the verdict
// stands, how small the diagram's type is drawn, and whether a label hides
// under the lane names a phone pins at the left edge.

// Layout is one reading of a frame's page at one viewport size.
type Layout struct {
	VerdictTop float64  `json:"verdictTop"` // in page coordinates
	MinText    float64  `json:"minText"`    // the diagram's smallest text, in CSS px as drawn
	Faults     []string `json:"faults"`
}

// LayoutJS reads a Layout; null until the page has its demo, its diagram
// and its script. The checks it runs:
//
//   - "fold": the verdict, the move's narration, the diagram and, on the
//     last frame, the lesson end inside the first screen;
//   - "overlap": no two of the frame's blocks (verdict, panels, narration,
//     lesson, diagram, the room's answers or the reader's, the sources)
//     overlap, one inside another aside, and no panel's text runs out of
//     its panel;
//   - "scroll": neither the page nor any box in it scrolls or cuts what it
//     holds (the phone's diagram, which scrolls sideways by design, aside);
//   - "clip": as "scroll", but the page may be longer than the screen;
//   - "sideways": the page does not scroll sideways;
//   - "pinned": no diagram label is hidden by the lane names a phone pins
//     at the diagram's left edge, wholly or half (":pired t=10").
//
// checks is a JavaScript array literal of those names.
func LayoutJS(checks string) string {
	return `(() => {
  const demo = document.querySelector('#demo'), svg = document.querySelector('svg[data-testid=timeline]');
  if (!demo || !svg || !window.htmx) return null;
  const checks = new Set(` + checks + `);
  // A resize is handled at once, as a page loaded at this size would be.
  window.dispatchEvent(new Event('resize'));
  window.scrollTo(0, 0);
  const out = [], H = innerHeight, W = innerWidth;
  const rect = e => e.getBoundingClientRect();
  const shown = e => e && e.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const name = e => (e.dataset.testid || e.id || e.className.baseVal || e.className || e.tagName) + ' ' + JSON.stringify((e.innerText || e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 40));
  const px = n => Math.round(n);
  const verdict = document.querySelector('[data-testid=verdict]');
  const narration = document.querySelector('[data-testid=narration]');
  const lesson = document.querySelector('[data-testid=lesson]');
  const last = demo.dataset.last === 'true';

  // The diagram as drawn: the SVG keeps its aspect, so its content may
  // stand inside a taller or wider box.
  const r = rect(svg), vb = svg.viewBox.baseVal;
  const scale = Math.min(r.width / vb.width, r.height / vb.height);
  const drawn = {top: r.top + (r.height - vb.height * scale) / 2, bottom: r.top + (r.height + vb.height * scale) / 2};
  let minText = Infinity;
  for (const t of svg.querySelectorAll('text')) {
    if (t.textContent.trim() === '') continue;
    minText = Math.min(minText, parseFloat(getComputedStyle(t).fontSize) * scale);
  }

  if (checks.has('fold')) {
    const parts = {
      'the verdict': verdict,
      "the move's narration": narration && ([...narration.querySelectorAll('.happened li, p:not(.checked)')].filter(shown).pop()),
    };
    if (last) parts['the lesson'] = lesson;
    for (const [what, e] of Object.entries(parts)) {
      if (!shown(e)) { out.push('fold: ' + what + ' is missing'); continue; }
      const b = rect(e);
      if (b.bottom > H + 0.5) out.push('fold: ' + what + ' ends at ' + px(b.bottom) + ' px, below the first screen of ' + H);
    }
    if (drawn.bottom > H + 0.5) out.push('fold: the diagram ends at ' + px(drawn.bottom) + ' px, below the first screen of ' + H);
  }

  if (checks.has('overlap')) {
    const blocks = [verdict, narration, lesson, svg.closest('section'), ...document.querySelectorAll('#demo .panels > .panel, #demo > #poll > section, #demo > [data-testid=predict-result], #demo > [data-testid=sources]')].filter(shown);
    for (let i = 0; i < blocks.length; i++) for (let j = i + 1; j < blocks.length; j++) {
      // A block inside another (the projector's lesson in the narration's
      // place) is part of it, not in its way.
      if (blocks[i].contains(blocks[j]) || blocks[j].contains(blocks[i])) continue;
      const a = rect(blocks[i]), c = rect(blocks[j]);
      const w = Math.min(a.right, c.right) - Math.max(a.left, c.left), h = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
      if (w > 1 && h > 1) out.push('overlap: ' + name(blocks[i]) + ' overlaps ' + name(blocks[j]) + ' by ' + px(w) + 'x' + px(h) + ' px');
    }
    for (const p of document.querySelectorAll('#demo .panels > .panel')) {
      const box = rect(p);
      for (const e of p.querySelectorAll('*:not(svg, svg *)')) {
        if (e.children.length || !shown(e)) continue;
        const b = rect(e);
        if (b.width === 0) continue;
        if (b.right > box.right + 1 || b.left < box.left - 1) { out.push('overlap: ' + name(e) + ' runs out of its panel (' + px(b.left) + '-' + px(b.right) + ' outside ' + px(box.left) + '-' + px(box.right) + ')'); break; }
      }
    }
  }

` + scrollJS + `
  if (checks.has('sideways')) {
    const de = document.documentElement;
    if (de.scrollWidth > W + 1) out.push('sideways: the page is ' + de.scrollWidth + ' px wide on a screen of ' + W);
  }

` + pinnedJS + `
  return {verdictTop: rect(verdict).top + scrollY, minText: minText === Infinity ? 0 : minText, faults: out};
})()`
}

// LinksJS lists the links that do not name the frame on screen: the page's
// title must read "k/n", and every link to this scenario (the language
// link, the canonical address, the share link) must carry its step and its
// switch; null until the page shows frame k in that position.
func LinksJS(id, sw string, on bool, k, n int) string {
	pos := "off"
	if on {
		pos = "on"
	}
	return `(() => {
  const idx = document.querySelector('[data-testid=step-index]');
  const sw = document.querySelector('#demo [data-testid="` + sw + `"][aria-pressed]');
  if (!idx || idx.innerText.replace(/\s+/g, ' ').trim() !== '` + strconv.Itoa(k) + ` / ` + strconv.Itoa(n) + `' || document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')) return null;
  if (sw && sw.getAttribute('aria-pressed') !== '` + strconv.FormatBool(on) + `') return null; // the switch's answer is not in yet
  const out = [];
  if (!document.title.includes(' ` + strconv.Itoa(k) + `/` + strconv.Itoa(n) + ` ')) out.push('the title reads ' + JSON.stringify(document.title));
  const links = [...document.querySelectorAll('a[href], link[href]')].map(a => [a, new URL(a.getAttribute('href'), location.href)]);
  let lang = false;
  for (const [a, u] of links) {
    if (!/^\/(scenarios|embed)\/` + id + `$/.test(u.pathname)) continue;
    lang = lang || a.dataset.testid === 'lang';
    const step = u.searchParams.get('step'), s = u.searchParams.get('` + sw + `');
    if (step !== '` + strconv.Itoa(k) + `' || s !== '` + pos + `') out.push((a.dataset.testid || a.rel || a.tagName) + ' ' + u.pathname + u.search + ' names step ' + step + ', ` + sw + `=' + s);
  }
  const share = document.querySelector('[data-testid=share-link]');
  if (share) { const u = new URL(share.value, location.href); if (u.searchParams.get('step') !== '` + strconv.Itoa(k) + `' || u.searchParams.get('` + sw + `') !== '` + pos + `') out.push('the share link is ' + share.value); }
  if (!lang && document.querySelector('[data-testid=lang]')) out.push('the language link does not lead to this scenario');
  return out;
})()`
}

// DeadControlsJS lists the controls shown that do nothing without
// JavaScript: a button that submits no form, a select that sends nothing.
const DeadControlsJS = `(() => {
  if (!document.querySelector('#demo')) return null;
  const out = [];
  for (const e of document.querySelectorAll('button, select, input[type=button]')) {
    if (!e.checkVisibility({visibilityProperty: true})) continue;
    const submits = e.tagName === 'BUTTON' && e.type === 'submit' && e.form && (e.form.getAttribute('action') || e.form.method === 'dialog');
    if (!submits) out.push((e.dataset.testid || e.id || e.tagName) + ' ' + JSON.stringify(e.innerText.trim()) + ' does nothing without JavaScript');
  }
  return out;
})()`

// SettledJS is js once ready (a JavaScript condition) holds and htmx has
// finished swapping and settling; null before.
func SettledJS(ready, js string) string {
	return `((` + ready + `) && !document.querySelector('.htmx-request, .htmx-added, .htmx-settling, .htmx-swapping') ? (` + js + `) : null)`
}

// FrameShownJS holds when the page shows frame k of n.
func FrameShownJS(k, n int) string {
	return `(document.querySelector('#demo [data-testid=step-index]')?.innerText.replace(/\s+/g, ' ').trim() === '` + strconv.Itoa(k) + ` / ` + strconv.Itoa(n) + `')`
}

// FreeFrameShownJS holds when the page shows a free-play frame n actions in.
func FreeFrameShownJS(n int) string {
	return `(!!document.querySelector('#demo [data-testid=offers]') && document.querySelectorAll('#demo .free-history li').length === ` + strconv.Itoa(n) + `)`
}

// OpenFoldJS lists what is wrong with the open group of offers sel finds
// (a details element): its actions must stand on the first screen, inside
// the page's width, and the row that holds it must not grow; null until it
// is open.
func OpenFoldJS(sel string) string {
	return `(() => {
  const d = document.querySelector('` + sel + `');
  if (!d || !d.open) return null;
  const out = [], H = innerHeight, W = document.documentElement.clientWidth, px = Math.round;
  for (const b of d.querySelectorAll('button')) {
    const r = b.getBoundingClientRect();
    if (!b.checkVisibility()) out.push(JSON.stringify(b.innerText.trim()) + ' is not shown');
    else if (r.bottom > H + 0.5 || r.right > W + 0.5 || r.left < -0.5) out.push(JSON.stringify(b.innerText.trim()) + ' stands at ' + px(r.left) + '-' + px(r.right) + ' x ' + px(r.top) + '-' + px(r.bottom) + ', outside the first screen of ' + W + 'x' + H);
  }
  if (document.documentElement.scrollWidth > innerWidth + 1) out.push('the page is ' + document.documentElement.scrollWidth + ' px wide on a screen of ' + innerWidth);
  return out;
})()`
}

// pinnedJS is LayoutJS's "pinned" check, on its svg, shown, rect and out.
const pinnedJS = `  if (checks.has('pinned')) {
    const lanes = document.querySelector('svg.tl-lanes'), box = svg.parentElement;
    if (shown(lanes)) {
      box.scrollIntoView({block: 'center'});
      // As the page left it (a phone's diagram may be scrolled to now), no
      // label is half under the names, half out (":pired t=10"); scrolled
      // back to its start, where the names cover only their own column,
      // none is under them at all.
      const hidden = (whole) => {
        const l = rect(lanes.querySelector('rect.pinned') || lanes);
        for (const t of svg.querySelectorAll('text')) {
          if (t.matches('.lane-label') || t.textContent.trim() === '') continue;
          const tr = rect(t);
          if (tr.bottom <= l.top + 0.5 || tr.top >= l.bottom - 0.5 || tr.left >= l.right - 0.5) continue;
          if (tr.right > l.right + 0.5) out.push('pinned: ' + JSON.stringify(t.textContent) + ' is cut by the lane names (' + px(tr.left) + '-' + px(tr.right) + ', names end at ' + px(l.right) + ')');
          else if (whole && tr.right > l.left + 0.5) out.push('pinned: ' + JSON.stringify(t.textContent) + ' is hidden under the lane names at the diagram\'s start (' + px(tr.left) + '-' + px(tr.right) + ', names end at ' + px(l.right) + ')');
        }
      };
      hidden(false);
      const left = box.scrollLeft;
      box.scrollLeft = 0;
      hidden(true);
      box.scrollLeft = left;
      window.scrollTo(0, 0);
    }
  }
`

// scrollJS is LayoutJS's "scroll" and "clip" checks, on its checks, H, shown, name and out.
const scrollJS = `  if (checks.has('scroll')) {
    const de = document.documentElement;
    if (de.scrollHeight > H + 1) out.push('scroll: the page is ' + de.scrollHeight + ' px high, more than the screen\'s ' + H);
  }
  if (checks.has('scroll') || checks.has('clip')) {
    for (const e of document.querySelectorAll('body *:not(svg, svg *, .sr-only, .sr-only *, textarea, input, select)')) {
      const s = getComputedStyle(e);
      if (s.overflowX === 'visible' && s.overflowY === 'visible' || !shown(e) || e.matches('.tl-scroll') && s.overflowX === 'auto') continue;
      const clipsY = s.overflowY !== 'visible' && e.scrollHeight > e.clientHeight + 1;
      const clipsX = s.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1;
      if (clipsY || clipsX) out.push((checks.has('scroll') ? 'scroll: ' : 'clip: ') + name(e) + ' scrolls or cuts its content (' + e.scrollWidth + 'x' + e.scrollHeight + ' in ' + e.clientWidth + 'x' + e.clientHeight + ')');
    }
  }

`
