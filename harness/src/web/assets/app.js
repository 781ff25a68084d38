// The browser view's pages, drawn from the harness's snapshots (JSON). A run page and a live
// game follow a server-sent event stream; the server sends only the newest state, so a page
// that was away catches up at once. Nothing here can change the run: every request is a GET.
'use strict';

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
};
const signed = (x, d = 1) => (x > 0 ? '+' : '') + x.toFixed(d);
const hms = (s) => {
  if (s == null) return '–';
  s = Math.max(0, Math.round(s));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? h + ':' + String(m).padStart(2, '0') : m) + ':' + String(r).padStart(2, '0');
};
const clock = (ms) => (ms == null ? '–' : (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s');

// An 8×8 board from 64 squares ('X' black, 'O' white, '-' empty); `last` a move like "d3".
function board(squares, last, cls) {
  const b = el('div', { class: 'board ' + (cls || '') });
  const lastIndex = last && last.length === 2 ? (Number(last[1]) - 1) * 8 + (last.charCodeAt(0) - 97) : -1;
  for (let i = 0; i < 64; i++) {
    const c = squares[i];
    const sq = el('div', { class: 'sq' + (i === lastIndex ? ' last' : ''), 'data-sq': i });
    if (c === 'X' || c === 'O') sq.append(el('div', { class: 'disc ' + (c === 'X' ? 'black' : 'white') }));
    b.append(sq);
  }
  b.dataset.squares = squares;
  return b;
}

function follow(url, draw) {
  let source = null;
  const open = () => {
    source = new EventSource(url);
    source.onmessage = (m) => draw(JSON.parse(m.data));
  };
  open();
  return () => source && source.close();
}

// ---- the run page ----------------------------------------------------------------------
function runPage(run) {
  fetch(`/run/${run}/state`).then((r) => r.json()).then(drawRun);
  follow(`/run/${run}/events`, drawRun);

  function drawRun(s) {
    if (!s.engines) return;
    if (s.name && $('name').textContent !== s.name) {
      $('name').textContent = s.name;
      document.title = s.name;
    }
    const left = s.eta_s != null ? ` · about ${hms(s.eta_s)} left` : '';
    const elapsed = s.elapsed_s != null ? `${hms(s.elapsed_s)} elapsed` : 'elapsed unknown';
    $('progress').textContent =
      `${s.done} of ${s.total} games · ${s.time_control} · ${elapsed}${left}` +
      (s.finished ? ' · finished' : '') +
      (s.error ? ` · ${s.error}` : '');
    drawSprt(s.sprt);
    drawStandings(s.standings || [], s.ratings || [], s.repeated_openings);
    const live = $('live');
    live.replaceChildren(...s.live.map((g) => {
      const a = el('a', { class: 'mini', href: `/run/${run}/game/${g.game + 1}`, 'data-game': g.game });
      a.append(board(g.board, g.last, 'small'),
        el('div', { class: 'names' }, `${g.game + 1}. ${g.names[0]} – ${g.names[1]}`),
        el('div', { class: 'meta' }, `${g.discs[0]}–${g.discs[1]} · ply ${g.ply}`));
      return a;
    }));
    if (s.playing > s.live.length) live.append(el('p', { class: 'meta' }, `and ${s.playing - s.live.length} more games in progress`));
    if (!s.live.length) {
      const none = s.finished ? 'The run is over.'
        : s.live_known === false ? 'Games in progress are shown by the process that plays them (harness run --serve); this page follows the finished games in the folder.'
        : 'No game in progress.';
      live.replaceChildren(el('p', { class: 'meta' }, none));
    }
    const rows = s.recent.map((r) => el('tr', {},
      el('td', {}, el('a', { href: `/run/${run}/game/${r.game + 1}` }, r.game + 1)),
      el('td', { class: 'l' }, r.black), el('td', { class: 'l' }, r.white),
      el('td', {}, signed(r.score, 0)), el('td', { class: 'l' }, r.termination)));
    $('recent').replaceChildren(table(['game', 'black', 'white', 'disc difference (Black)', 'end'], rows, 'recent'));
  }

  // Openings that repeat: the intervals count openings, or are withheld (the warning says why).
  function drawStandings(matches, ratings, repeated) {
    const bound = (x, inf) => (x == null ? inf : signed(x));
    const interval = (i, m) => (!i ? '–' : m.interval_withheld ? `${signed(i.value)} [no interval]`
      : `${signed(i.value)} [${bound(i.low, '-inf')}, ${bound(i.high, '+inf')}]`);
    const rows = matches.map((m) => el('tr', {},
      el('td', { class: 'l' }, m.a), el('td', { class: 'l' }, m.b), el('td', {}, m.games),
      el('td', {}, `${m.wins}-${m.draws}-${m.losses}`), el('td', {}, (100 * m.score).toFixed(1) + '%'),
      el('td', {}, interval(m.elo, m)), el('td', {}, interval(m.disc_diff, m))));
    const parts = [table(['engine', 'opponent', 'games', 'W-D-L', 'score', 'Elo (95%)', 'discs (95%)'], rows, 'standings')];
    if (repeated) {
      parts.push(el('p', { class: 'warning', id: 'repeated-openings' },
        `Warning: ${repeated.warning}. ${repeated.sprt}.`));
    }
    if (ratings.length) {
      parts.push(table(['engine', 'Elo', '95%', 'games'], ratings.map((r) => el('tr', {},
        el('td', { class: 'l' }, r.name), el('td', {}, signed(r.elo)),
        el('td', {}, `[${signed(r.low)}, ${signed(r.high)}]`), el('td', {}, r.games))), 'ratings'));
    }
    $('standings').replaceChildren(...parts);
  }

  function drawSprt(t) {
    const box = $('sprt');
    if (!t) { box.replaceChildren(); return; }
    const span = t.upper - t.lower;
    const at = Math.min(1, Math.max(0, (t.llr - t.lower) / span));
    const bar = el('div', { class: 'llr' }, el('div', { class: 'mark', style: `left:${(100 * at).toFixed(1)}%` }));
    box.replaceChildren(el('p', {}, `SPRT: ${t.evidence} · ${t.decision}`), bar);
  }
}

function table(heads, rows, cls) {
  const head = el('tr', {}, ...heads.map((h, i) => el('th', { class: i < 2 ? 'l' : '' }, h)));
  return el('table', { class: cls }, el('thead', {}, head), el('tbody', {}, ...rows));
}

// ---- the game page ---------------------------------------------------------------------
// `view` names the one side's view every score on the page is given from.
function gamePage(run, game, view) {
  let g = null;
  let ply = 0;
  let pinned = false; // the viewer stepped back: stay there while moves arrive
  let received = performance.now();
  fetch(`/run/${run}/game/${game}/state`).then((r) => (r.ok ? r.json() : null)).then((s) => {
    if (!s) { $('result').textContent = 'No such game yet.'; return; }
    show(s, true);
    if (!s.finished) follow(`/run/${run}/game/${game}/events`, (t) => show(t, false));
  });

  function show(s, first) {
    const atEnd = !g || ply === g.boards.length - 1;
    g = s;
    received = performance.now();
    $('title').textContent = `game ${s.game + 1}: ${s.names[0]} (black) – ${s.names[1]} (white)`;
    if (first || (atEnd && !pinned)) ply = s.boards.length - 1;
    draw();
  }

  function draw() {
    const m = g.moves[ply - 1];
    $('board').replaceChildren(board(g.boards[ply], m ? m.mv : null, 'big'));
    $('ply').textContent = `${ply} / ${g.boards.length - 1}`;
    $('ply').dataset.ply = ply;
    const running = g.clock_running;
    const tick = (i) => {
      const ms = g.clocks_ms[i];
      if (ms == null) return null;
      const side = i === 0 ? 'black' : 'white';
      return running === side ? Math.max(0, ms - (performance.now() - received)) : ms;
    };
    // A game in progress: each side's clock, the side to move's running. A finished one: the
    // clocks it ended with and each side's thinking time.
    const clockText = (i) => {
      if (!g.finished) return clock(tick(i));
      const left = g.clocks_ms[i] == null ? [] : [`${clock(g.clocks_ms[i])} left`];
      const used = g.time_used_ms ? [`${clock(g.time_used_ms[i])} used`] : [];
      return left.concat(used).join(' · ') || '–';
    };
    $('clocks').replaceChildren(...[0, 1].map((i) => {
      const c = el('div', {
        class: 'clock' + (running === (i ? 'white' : 'black') ? ' running' : ''),
      }, `${g.names[i]}: ${clockText(i)}`);
      if (g.clocks_ms[i] != null) c.dataset.leftMs = g.clocks_ms[i];
      if (g.time_used_ms) c.dataset.usedMs = g.time_used_ms[i];
      return c;
    }));
    const info = g.thinking.map((t, i) => (t ? el('div', { class: 'meta report', 'data-side': i ? 'white' : 'black' },
      `${g.names[i]}: depth ${t.depth}, score ${signed(t.black_score)} (${view}), ${t.nodes} nodes, pv ${t.pv.join(' ')}`) : null)).filter(Boolean);
    $('thinking').replaceChildren(...info);
    const r = g.result;
    $('result').textContent = r ? `${r.result} · ${r.difference} · ${r.termination}${r.reason ? ': ' + r.reason : ''}` : '';
    $('graph').replaceChildren(graph(g, ply, view));
    const list = g.moves.map((mv, i) => {
      const cls = 'mv' + (i === ply - 1 ? ' at' : '') + (mv.book ? ' book' : '') + (mv.loss ? ' lost' : '');
      const score = mv.score == null ? '' : ` ${signed(mv.score)}${Math.abs(mv.score) > 64 ? ' (out of range)' : ''}`;
      const b = el('button', { class: cls, 'data-ply': i + 1, 'data-color': mv.color }, `${i + 1}. ${mv.mv}${mv.symbol || ''}${score}`);
      b.onclick = () => go(i + 1);
      return b;
    });
    $('moves').replaceChildren(...list);
  }

  function go(to) {
    if (!g) return;
    ply = Math.max(0, Math.min(g.boards.length - 1, to));
    pinned = ply !== g.boards.length - 1;
    draw();
  }
  $('first').onclick = () => go(0);
  $('prev').onclick = () => go(ply - 1);
  $('next').onclick = () => go(ply + 1);
  $('last').onclick = () => go(Infinity);
  document.addEventListener('keydown', (e) => {
    const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: Infinity }[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
  setInterval(() => g && g.clock_running && draw(), 200);
}

// The engines' scores over game `g`, one line per engine, each from the page's one `view`
// (Black's: every score of a White move is negated by the server): ply on x, discs on y with
// a zero line and labelled ticks, the step shown marked; a key names the lines.
function graph(g, ply, view) {
  const ns = 'http://www.w3.org/2000/svg';
  const W = 420, H = 190, left = 40, right = 10, top = 10, bottom = 34;
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('class', 'graph');
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
    if (text != null) e.textContent = text;
    svg.append(e);
    return e;
  };
  const plies = Math.max(60, g.moves.length);
  // A score past ±64 is no disc count: left out of the plot, and said under it.
  const inRange = (m) => m.score != null && Math.abs(m.score) <= 64;
  const outOfRange = g.moves.filter((m) => m.score != null && !inRange(m)).length;
  const biggest = Math.max(4, ...g.moves.filter(inRange).map((m) => Math.abs(m.score)));
  const range = Math.min(64, Math.ceil(biggest / 4) * 4);
  const x = (p) => left + (p * (W - left - right)) / plies;
  const y = (v) => top + ((range - Math.max(-range, Math.min(range, v))) * (H - top - bottom)) / (2 * range);
  const f = (n) => n.toFixed(2);
  for (const v of [range, range / 2, 0, -range / 2, -range]) {
    add('line', { x1: left, y1: f(y(v)), x2: W - right, y2: f(y(v)), class: v === 0 ? 'zero' : 'grid' });
    add('line', { x1: left - 4, y1: f(y(v)), x2: left, y2: f(y(v)), class: 'tick' });
    add('text', { x: left - 6, y: f(y(v)), class: 'ylabel', 'text-anchor': 'end', 'dominant-baseline': 'middle' },
      v === 0 ? '0' : signed(v, 0));
  }
  for (let p = 0; p <= plies; p += 10) {
    add('line', { x1: f(x(p)), y1: H - bottom, x2: f(x(p)), y2: H - bottom + 4, class: 'tick' });
    add('text', { x: f(x(p)), y: H - bottom + 14, class: 'xlabel', 'text-anchor': 'middle' }, p);
  }
  add('line', { x1: left, y1: top, x2: left, y2: H - bottom, class: 'axis' });
  add('line', { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, class: 'axis' });
  add('text', { x: (left + W - right) / 2, y: H - 3, class: 'title', 'text-anchor': 'middle' }, 'ply');
  add('text', { x: 11, y: (top + H - bottom) / 2, class: 'title', 'text-anchor': 'middle',
    transform: `rotate(-90 11 ${(top + H - bottom) / 2})` }, view);
  if (ply > 0) add('line', { x1: f(x(ply)), y1: top, x2: f(x(ply)), y2: H - bottom, class: 'now' });
  ['black', 'white'].forEach((side, i) => {
    const pts = g.moves.map((m, k) => [k + 1, m]).filter(([, m]) => m.color === side && inRange(m));
    add('polyline', {
      points: pts.map(([p, m]) => `${f(x(p))},${f(y(m.score))}`).join(' '),
      class: `eval ${side}`, 'data-side': side, 'data-engine': g.names[i],
    });
  });
  const key = el('div', { class: 'key meta' }, `Evaluation (${view}): `,
    el('span', { class: 'swatch black' }), `${g.names[0]} (Black) `,
    el('span', { class: 'swatch white' }), `${g.names[1]} (White)`,
    outOfRange ? ` · ${outOfRange} score${outOfRange > 1 ? 's' : ''} past ±64 left out (out of range)` : '');
  return el('figure', { class: 'chart' }, svg, key);
}

const page = document.body.dataset;
if (page.page === 'run') runPage(page.run);
if (page.page === 'game') gamePage(page.run, Number(page.game), page.view);
