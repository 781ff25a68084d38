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
      (s.finished ? ' · finished' : '');
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
    $('recent').replaceChildren(table(['game', 'black', 'white', 'discs (B)', 'end'], rows, 'recent'));
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
    box.replaceChildren(el('p', {}, `SPRT: LLR ${t.llr.toFixed(2)} between ${t.lower.toFixed(2)} and ${t.upper.toFixed(2)} · ${t.decision}`), bar);
  }
}

function table(heads, rows, cls) {
  const head = el('tr', {}, ...heads.map((h, i) => el('th', { class: i < 2 ? 'l' : '' }, h)));
  return el('table', { class: cls }, el('thead', {}, head), el('tbody', {}, ...rows));
}

// ---- the game page ---------------------------------------------------------------------
function gamePage(run, game) {
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
    $('clocks').replaceChildren(...[0, 1].map((i) => el('div', {
      class: 'clock' + (running === (i ? 'white' : 'black') ? ' running' : ''),
    }, `${g.names[i]}: ${clock(tick(i))}`)));
    const info = g.thinking.map((t, i) => (t ? el('div', { class: 'meta' },
      `${g.names[i]}: depth ${t.depth}, score ${signed(t.score)}, ${t.nodes} nodes, pv ${t.pv.join(' ')}`) : null)).filter(Boolean);
    $('thinking').replaceChildren(...info);
    $('result').textContent = g.result ? `${signed(g.result.score, 0)} (Black's discs) · ${g.result.termination}${g.result.reason ? ': ' + g.result.reason : ''}` : '';
    $('graph').replaceChildren(graph(g.moves, ply));
    const list = g.moves.map((mv, i) => {
      const cls = 'mv' + (i === ply - 1 ? ' at' : '') + (mv.book ? ' book' : '') + (mv.loss ? ' lost' : '');
      const score = mv.score == null ? '' : ` ${signed(mv.score)}`;
      const b = el('button', { class: cls, 'data-ply': i + 1 }, `${i + 1}. ${mv.mv}${mv.symbol || ''}${score}`);
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

// The engines' scores over the game (Black's view), with the step shown marked.
function graph(moves, ply) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 300 100');
  svg.setAttribute('class', 'graph');
  const pts = moves.map((m, i) => [i, m.score]).filter((p) => p[1] != null);
  const n = Math.max(1, moves.length);
  const y = (v) => 50 - Math.max(-64, Math.min(64, v)) * (45 / 64);
  const line = (x1, y1, x2, y2, cls) => {
    const l = document.createElementNS(ns, 'line');
    Object.entries({ x1, y1, x2, y2, class: cls }).forEach(([k, v]) => l.setAttribute(k, v));
    svg.append(l);
  };
  line(0, 50, 300, 50, 'zero');
  if (ply > 0) line((ply - 1) * 300 / n, 0, (ply - 1) * 300 / n, 100, 'now');
  const path = document.createElementNS(ns, 'polyline');
  path.setAttribute('points', pts.map(([i, v]) => `${(i * 300 / n).toFixed(1)},${y(v).toFixed(1)}`).join(' '));
  path.setAttribute('class', 'eval');
  svg.append(path);
  return svg;
}

const page = document.body.dataset;
if (page.page === 'run') runPage(page.run);
if (page.page === 'game') gamePage(page.run, Number(page.game));
