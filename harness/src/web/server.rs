//! The HTTP side of the browser view: read-only routes over the runs served, live updates as
//! server-sent events, and the guards (a token for non-loopback addresses, the `Host` a
//! loopback server answers to, no path from the request ever touching the file system).
//!
//! Routes: `/` (the runs served and the ledger's history), `/run/{i}` (a run's page),
//! `/run/{i}/state` and `/run/{i}/events` (its snapshot, once or as a stream),
//! `/run/{i}/game/{n}` (a game's page), `/run/{i}/game/{n}/state` and `…/events`,
//! `/run/{i}/report` (the folder's `report.html`), `/history` (the ledger's page), and the
//! page's script and style sheet. Nothing else answers, and no route writes anything.

use super::feed::Published;
use super::{pages, snapshot};
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use harness_core::record::run_folder::RunFolder;
use std::collections::HashMap;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::watch;

/// The cookie a browser keeps the token in after presenting it once as `?token=T`.
const TOKEN_COOKIE: &str = "harness_token";

/// A run served: its folder and the snapshots of its model.
pub struct ServedRun {
    pub dir: PathBuf,
    pub feed: watch::Receiver<Arc<Published>>,
}

/// The ledger's history page, made when asked for.
/// The history page, anchored where its address asks (`?anchor=BUILD`) or at each series'
/// first build.
pub type HistoryPage = Box<dyn Fn(Option<&str>) -> anyhow::Result<String> + Send + Sync>;

/// Everything the server answers from.
pub struct Served {
    pub runs: Vec<ServedRun>,
    pub history: Option<HistoryPage>,
    /// The token a non-loopback server requires.
    pub token: Option<String>,
    /// The `Host` values a loopback server answers (its address by number and as
    /// `localhost`); empty for a server bound elsewhere, which the token guards.
    pub hosts: Vec<String>,
}

/// The routes over `served`.
pub fn router(served: Arc<Served>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(script))
        .route("/app.css", get(style))
        .route("/history", get(history))
        .route("/run/{i}", get(run_page))
        .route("/run/{i}/state", get(run_state))
        .route("/run/{i}/events", get(run_events))
        .route("/run/{i}/report", get(report))
        .route("/run/{i}/game/{n}", get(game_page))
        .route("/run/{i}/game/{n}/state", get(game_state))
        .route("/run/{i}/game/{n}/events", get(game_events))
        .layer(axum::middleware::from_fn_with_state(served.clone(), guard))
        .with_state(served)
}

/// The guards every request passes: the `Host` of a loopback server (no DNS rebinding), and
/// the token where one is set (from `?token=`, which also sets the cookie, or the cookie).
/// Every answer says it is not to be framed, sniffed or referred.
async fn guard(State(s): State<Arc<Served>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    if !s.hosts.is_empty() {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !s.hosts.iter().any(|h| h == host) {
            return (StatusCode::MISDIRECTED_REQUEST, "unknown host\n").into_response();
        }
    }
    let mut set_cookie = false;
    if let Some(token) = &s.token {
        let query: HashMap<String, String> = request
            .uri()
            .query()
            .and_then(query_pairs)
            .unwrap_or_default();
        let presented = query.get("token") == Some(token);
        let cookie = cookie(headers, TOKEN_COOKIE).as_deref() == Some(token.as_str());
        if !presented && !cookie {
            return (
                StatusCode::UNAUTHORIZED,
                "this view needs its token: open the URL with ?token=…\n",
            )
                .into_response();
        }
        set_cookie = presented;
    }
    // The token presented in the URL becomes the cookie, and the browser is sent on to the
    // same page without it, so that the token stays out of its history and bookmarks.
    let mut response = if set_cookie {
        let path = request.uri().path();
        let rest: Vec<String> = request
            .uri()
            .query()
            .unwrap_or("")
            .split('&')
            .filter(|pair| !pair.is_empty() && !pair.starts_with("token="))
            .map(str::to_string)
            .collect();
        let location = if rest.is_empty() {
            path.to_string()
        } else {
            format!("{path}?{}", rest.join("&"))
        };
        let mut redirect = StatusCode::SEE_OTHER.into_response();
        if let Ok(v) = HeaderValue::from_str(&location) {
            redirect.headers_mut().insert(header::LOCATION, v);
        }
        redirect
    } else {
        next.run(request).await
    };
    let h = response.headers_mut();
    for (name, value) in [
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("cache-control", "no-store"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    if let (true, Some(token)) = (set_cookie, &s.token) {
        let value = format!("{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(header::SET_COOKIE, v);
        }
    }
    response
}

/// The pairs of a query string.
fn query_pairs(query: &str) -> Option<HashMap<String, String>> {
    Query::<HashMap<String, String>>::try_from_uri(&format!("/?{query}").parse().ok()?)
        .ok()
        .map(|q| q.0)
}

/// The value of cookie `name`.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then(|| v.to_string())
        })
}

async fn index(State(s): State<Arc<Served>>) -> Html<String> {
    let runs: Vec<pages::RunLink> = s.runs.iter().map(ServedRun::link).collect();
    Html(pages::index(&runs, s.history.is_some()))
}

impl ServedRun {
    /// The run's name (its folder's until the run is known) and its folder.
    fn link(&self) -> pages::RunLink {
        pages::RunLink {
            name: self.feed.borrow().name.as_deref().map(str::to_string),
            folder: self.dir.display().to_string(),
        }
    }
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        pages::SCRIPT,
    )
}

async fn style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        pages::STYLE,
    )
}

async fn history(
    State(s): State<Arc<Served>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if s.history.is_none() {
        return not_found();
    }
    let anchor = query.get("anchor").cloned();
    let asked = anchor.is_some();
    // Built off the runtime: the ledger's clients block (PostgreSQL's starts a runtime of its
    // own, which cannot run inside this one) and the joint fit of a large ledger takes seconds.
    let built =
        tokio::task::spawn_blocking(move || s.history.as_ref().map(|page| page(anchor.as_deref())))
            .await;
    match built {
        Ok(Some(Ok(html))) => Html(html).into_response(),
        // The anchor asked for is not a build of the ledger (or rates nothing).
        Ok(Some(Err(e))) if asked => {
            (StatusCode::BAD_REQUEST, format!("anchor: {e:#}\n")).into_response()
        }
        Ok(Some(Err(e))) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the ledger: {e:#}\n"),
        )
            .into_response(),
        Ok(None) => not_found(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the history page failed: {e}\n"),
        )
            .into_response(),
    }
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not here\n").into_response()
}

/// Run `i`, if served.
fn served_run<'a>(s: &'a Served, i: &str) -> Option<&'a ServedRun> {
    i.parse::<usize>().ok().and_then(|i| s.runs.get(i))
}

async fn run_page(State(s): State<Arc<Served>>, UrlPath(i): UrlPath<String>) -> Response {
    match served_run(&s, &i) {
        Some(r) => Html(pages::run(&i, &r.link())).into_response(),
        None => not_found(),
    }
}

async fn run_state(State(s): State<Arc<Served>>, UrlPath(i): UrlPath<String>) -> Response {
    match served_run(&s, &i) {
        Some(r) => json(r.feed.borrow().run.to_string()),
        None => not_found(),
    }
}

fn json(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

/// What part of a snapshot an event stream sends.
type Pick = Arc<dyn Fn(&Published) -> Option<Arc<str>> + Send + Sync>;

/// A stream of `pick`'s part of each new snapshot, starting with the current one; a part
/// that did not change is not sent again. It ends when the model's thread is gone.
fn stream_of(
    feed: watch::Receiver<Arc<Published>>,
    pick: impl Fn(&Published) -> Option<Arc<str>> + Send + Sync + 'static,
) -> Sse<impl futures_util::Stream<Item = Result<SseEvent, Infallible>>> {
    let pick: Pick = Arc::new(pick);
    let stream = futures_util::stream::unfold(
        (feed, None::<Arc<str>>, true, pick),
        |(mut feed, last, mut first, pick)| async move {
            loop {
                if !first && feed.changed().await.is_err() {
                    return None;
                }
                first = false;
                let Some(now) = pick(&feed.borrow_and_update()) else {
                    continue;
                };
                if last.as_ref().is_some_and(|l| Arc::ptr_eq(l, &now)) {
                    continue;
                }
                let event = SseEvent::default().data(&*now);
                return Some((Ok(event), (feed, Some(now), false, pick)));
            }
        },
    );
    Sse::new(stream).keep_alive(KeepAlive::default())
}

async fn run_events(State(s): State<Arc<Served>>, UrlPath(i): UrlPath<String>) -> Response {
    match served_run(&s, &i) {
        Some(r) => stream_of(r.feed.clone(), |p| Some(p.run.clone())).into_response(),
        None => not_found(),
    }
}

async fn report(State(s): State<Arc<Served>>, UrlPath(i): UrlPath<String>) -> Response {
    let Some(dir) = served_run(&s, &i).map(|r| r.dir.clone()) else {
        return not_found();
    };
    let path = dir.join(crate::show::report::HTML_FILE);
    match tokio::task::spawn_blocking(move || std::fs::read_to_string(path)).await {
        Ok(Ok(html)) => Html(html).into_response(),
        _ => not_found(),
    }
}

async fn game_page(
    State(s): State<Arc<Served>>,
    UrlPath((i, n)): UrlPath<(String, String)>,
) -> Response {
    match (served_run(&s, &i), game_number(&n)) {
        (Some(_), Some(n)) => Html(pages::game(&i, n)).into_response(),
        _ => not_found(),
    }
}

/// The game a URL names: game numbers in URLs are the ones the pages show (`game 1` is the
/// schedule's game 0); 0 and anything else name none.
fn game_number(text: &str) -> Option<usize> {
    text.parse::<usize>().ok()?.checked_sub(1)
}

/// A game's snapshot: the live one while it plays or just ended, else the journal's record
/// with its analysis.
async fn game_state(
    State(s): State<Arc<Served>>,
    UrlPath((i, n)): UrlPath<(String, String)>,
) -> Response {
    let (Some(run), Some(n)) = (served_run(&s, &i), game_number(&n)) else {
        return not_found();
    };
    if let Some(live) = run.feed.borrow().games.get(&n) {
        return json(live.to_string());
    }
    let dir = run.dir.clone();
    match tokio::task::spawn_blocking(move || finished_game(&dir, n)).await {
        Ok(Some(text)) => json(text),
        _ => not_found(),
    }
}

async fn game_events(
    State(s): State<Arc<Served>>,
    UrlPath((i, n)): UrlPath<(String, String)>,
) -> Response {
    match (served_run(&s, &i), game_number(&n)) {
        (Some(r), Some(n)) => {
            stream_of(r.feed.clone(), move |p| p.games.get(&n).cloned()).into_response()
        }
        _ => not_found(),
    }
}

/// Game `n` of the run in `dir` (a shard's journal included), from its journal line, with
/// the exact marks of `analysis.jsonl` where the game was analysed.
fn finished_game(dir: &std::path::Path, n: usize) -> Option<String> {
    use std::io::BufRead;
    /// A journal line's game number, whatever the order of its keys.
    #[derive(serde::Deserialize)]
    struct Numbered {
        game: usize,
    }
    for folder in RunFolder::at(dir).journal_folders() {
        let Ok(file) = std::fs::File::open(folder.join(harness_core::record::journal::JSONL_FILE))
        else {
            continue;
        };
        let line = std::io::BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            .find(|l| serde_json::from_str::<Numbered>(l).is_ok_and(|r| r.game == n));
        let Some(line) = line else {
            continue;
        };
        let record: harness_core::record::GameRecord = serde_json::from_str(&line).ok()?;
        let mut replay = crate::show::tui::replay::Replay::new(vec![record], None).ok()?;
        replay.analysis = harness_core::record::analysis::read_analysis(&folder)
            .unwrap_or_default()
            .into_iter()
            .filter(|a| a.game == n)
            .map(|a| (a.game, a))
            .collect();
        replay.ply = replay.record().moves.len();
        let mut g = replay.game();
        g.clocks = clocks_at_end(&folder, replay.record());
        let marks = replay.marks();
        return serde_json::to_string(&snapshot::game(&g, &marks, std::time::Instant::now())).ok();
    }
    None
}

/// The clocks game `record` of the run in `folder` ended with, under the time rules its
/// `tournament.json` pins (none where they cannot be read).
fn clocks_at_end(
    folder: &std::path::Path,
    record: &harness_core::record::GameRecord,
) -> harness_core::events::SideClocks {
    let tournament = harness_core::record::tournament_record::TournamentRecord::read(folder)
        .ok()
        .and_then(|r| harness_core::plan::recorded::tournament_of(&r).ok());
    let Some(t) = tournament else {
        return [None, None];
    };
    let rules = |name: &str| {
        let engine = t.engines.iter().position(|e| e.name == name)?;
        Some(t.played_time_rules(engine))
    };
    match (rules(&record.black), rules(&record.white)) {
        (Some(black), Some(white)) => {
            crate::play::clock::GameClock::at_end_of([black, white], record)
        }
        _ => [None, None],
    }
}
