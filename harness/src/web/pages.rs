//! The pages of the browser view: small HTML shells that name what they show, and one script
//! and one style sheet (compiled in from `assets/`: the binary serves everything itself, with
//! no fetch from anywhere else) that draw them from the snapshots.

use crate::show::report::esc;
use crate::show::text::SCORES_VIEW;

/// The script of every page: reads the snapshots, draws boards, tables and charts.
pub const SCRIPT: &str = include_str!("assets/app.js");
/// The style sheet of every page.
pub const STYLE: &str = include_str!("assets/app.css");

/// A page: its title, what the script is to draw (`data-*` attributes), and its body.
fn shell(title: &str, data: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"/app.css\">\n</head>\n\
         <body {data}>\n<main>\n{body}\n</main>\n<script src=\"/app.js\"></script>\n\
         </body>\n</html>\n",
        esc(title)
    )
}

/// A run as the pages name it.
pub struct RunLink {
    /// Its name ([`crate::show::text::run_name`]), once its tournament is known.
    pub name: Option<String>,
    /// Its folder, as it was given.
    pub folder: String,
}

impl RunLink {
    /// The name, or the folder while the run is not known yet.
    fn title(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.folder)
    }
}

/// The first page: the runs served by name, each with its folder, and the ledger's history
/// when there is one.
pub fn index(runs: &[RunLink], history: bool) -> String {
    let mut body = String::from("<h1>Othello arena</h1>\n<ul class=\"runs\">\n");
    for (i, run) in runs.iter().enumerate() {
        body.push_str(&format!(
            "<li><a href=\"/run/{i}\">{}</a> <span class=\"meta folder\">{}</span></li>\n",
            esc(run.title()),
            esc(&run.folder)
        ));
    }
    body.push_str("</ul>\n");
    if history {
        body.push_str("<p><a href=\"/history\">Elo over commits (the ledger)</a></p>\n");
    }
    shell("Othello arena", "data-page=\"index\"", &body)
}

/// A run's page: its name and folder, progress, standings, the test, games in progress,
/// recent results.
pub fn run(i: &str, run: &RunLink) -> String {
    let body = format!(
        "<p class=\"crumbs\"><a href=\"/\">runs</a> · <a href=\"/run/{i}/report\">report</a></p>\n\
         <h1 id=\"name\">{}</h1>\n<p id=\"folder\" class=\"meta folder\">{}</p>\n\
         <p id=\"progress\" class=\"meta\">waiting for the run…</p>\n\
         <div id=\"sprt\"></div>\n<h2>Standings</h2>\n<div id=\"standings\"></div>\n\
         <h2>Games in progress</h2>\n<div id=\"live\" class=\"boards\"></div>\n\
         <h2>Recent results</h2>\n<div id=\"recent\"></div>",
        esc(run.title()),
        esc(&run.folder)
    );
    shell(
        run.title(),
        &format!("data-page=\"run\" data-run=\"{}\"", esc(i)),
        &body,
    )
}

/// The page of game `n` of the schedule (`game n+1` in its title and URL): the board, the
/// clocks, the engines' reports, the evaluation chart and the moves, stepped through with the
/// buttons or the arrow keys. Every score on it is from one side's view
/// ([`crate::show::text::SCORES_VIEW`]), which it says.
pub fn game(i: &str, n: usize) -> String {
    let body = format!(
        "<p class=\"crumbs\"><a href=\"/\">runs</a> · <a href=\"/run/{i}\">run</a></p>\n\
         <h1 id=\"title\">game {}</h1>\n<div class=\"game\">\n<div>\n\
         <div id=\"board\" class=\"board-holder\"></div>\n<div class=\"steps\">\
         <button id=\"first\" title=\"Home\">«</button><button id=\"prev\" title=\"←\">◀</button>\
         <span id=\"ply\"></span><button id=\"next\" title=\"→\">▶</button>\
         <button id=\"last\" title=\"End\">»</button></div>\n</div>\n<div class=\"side\">\n\
         <div id=\"clocks\" class=\"clocks\"></div>\n<div id=\"result\" class=\"meta\"></div>\n\
         <p id=\"scores-view\" class=\"meta\">Scores in {view} (+ good for Black, − for White).</p>\n\
         <div id=\"thinking\"></div>\n<div id=\"graph\"></div>\n\
         <div id=\"moves\" class=\"moves\"></div>\n</div>\n</div>",
        n + 1,
        view = esc(SCORES_VIEW),
    );
    shell(
        &format!("game {}", n + 1),
        &format!(
            "data-page=\"game\" data-run=\"{}\" data-game=\"{}\" data-view=\"{}\"",
            esc(i),
            n + 1,
            esc(SCORES_VIEW)
        ),
        &body,
    )
}
