//! `report.md`: the short summary a CI job shows (GitHub-flavoured Markdown).

use super::{headline, verdict_line, Report};
use crate::show::standings::{Column, Standing};
use std::fmt::Write;

/// Escapes what would break a table cell or be read as markup: the cell separator, line
/// breaks, HTML (`<`, `>`, `&` as entities: a job summary renders raw HTML), code spans,
/// emphasis and backslashes. Engine names, and the messages and names plugins chose, pass
/// through here.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' | '`' | '*' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn pairing_row(p: &Standing) -> String {
    let cells: Vec<String> = Column::ALL.iter().map(|&c| cell(&p.cell(c))).collect();
    format!("| {} |", cells.join(" | "))
}

/// Renders the Markdown summary.
pub fn markdown(report: &Report) -> String {
    let mut s = String::new();
    let t = &report.tournament;
    let _ = writeln!(s, "## Othello tournament report\n");
    if let Some(line) = verdict_line(report) {
        let _ = writeln!(s, "{line}\n");
    }
    let _ = writeln!(s, "{}\n", headline(report));
    let elapsed = report
        .totals
        .elapsed_seconds
        .map(|e| {
            let t = &report.totals;
            format!(
                ", {}",
                crate::show::text::elapsed_words(e, t.session_seconds, t.shards_elapsed_seconds)
            )
        })
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "{} · {} · {} of {} games{}{} · `{}`\n",
        t.format,
        t.time_control,
        report.totals.games,
        t.planned_games,
        elapsed,
        super::status_note(report)
            .map(|n| format!(" · {n}"))
            .unwrap_or_default(),
        t.source
    );
    let _ = writeln!(s, "Sandbox: {}.\n", t.sandbox_line());
    if let Some(sp) = &report.sprt {
        let p = &sp.params;
        let _ = writeln!(
            s,
            "SPRT: {} Elo [{}, {}] on {} results, α = {}, β = {}: LLR {:.2}, bounds [{:.2}, {:.2}], {} observations.\n",
            p.model.as_str(), p.elo0, p.elo1, p.unit.as_str(), p.alpha, p.beta, sp.llr,
            sp.lower_bound, sp.upper_bound, sp.observations
        );
    }
    let headers: Vec<&str> = Column::ALL.iter().map(|c| c.header()).collect();
    let _ = writeln!(s, "| {} |", headers.join(" | "));
    let _ = writeln!(
        s,
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for p in &report.pairings {
        let _ = writeln!(s, "{}", pairing_row(p));
    }
    if let Some(r) = &report.repeated_openings {
        let _ = writeln!(
            s,
            "\n> **Warning:** {}.\n>\n> {}.",
            cell(&r.warning),
            cell(&r.sprt)
        );
    }
    if report.totals.forfeits > 0 {
        let _ = writeln!(
            s,
            "\nDiscs per game are over the pairs played out: a pair with a forfeit is left out of \
             them (a forfeit counts as a result, ±64, in the score and the Elo)."
        );
    }
    if let Some(r) = &report.ratings {
        let _ = writeln!(
            s,
            "\nJoint rating (Bradley-Terry, {} = 0):\n",
            r.anchor.as_deref().unwrap_or("mean")
        );
        let _ = writeln!(s, "| rank | engine | Elo | 95% interval | games | score |");
        let _ = writeln!(s, "| ---: | --- | ---: | ---: | ---: | ---: |");
        for e in &r.engines {
            let _ = writeln!(
                s,
                "| {} | {} | {:+.1} | [{:+.1}, {:+.1}] | {} | {:.1}% |",
                e.rank,
                cell(&e.name),
                e.elo,
                e.low,
                e.high,
                e.games,
                100.0 * e.score
            );
        }
    }
    let _ = writeln!(
        s,
        "\nEngines (searched moves; book moves and forced passes aside):\n\n\
         | engine | games | moves | mean depth | ms/move | nodes/s | s/game | CPU s off turn |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for u in &report.engines {
        let [name, rest @ ..] = super::usage_cells(u);
        let _ = writeln!(s, "| {} | {} |", cell(&name), rest.join(" | "));
    }
    if let Some(a) = &report.analysis {
        analysis_section(&mut s, a);
    }
    if report.forfeits.is_empty() {
        let _ = writeln!(s, "\nNo forfeits.");
    } else {
        let _ = writeln!(s, "\nForfeits:\n");
        for f in &report.forfeits {
            let _ = writeln!(
                s,
                "- {}: {} × `{}` (games {}), e.g. {}",
                cell(&f.engine),
                f.count,
                f.termination.as_str(),
                super::game_numbers(&f.games),
                cell(&f.example)
            );
        }
    }
    s
}

/// Where games were lost: each engine's errors against exact solves, and what the figures
/// leave out.
fn analysis_section(s: &mut String, a: &super::AnalysisReport) {
    let _ = writeln!(
        s,
        "\nWhere games were lost (exact solves from {} empties, {} games):\n\n\
         | engine | games | moves | best moves | discs lost/game | points thrown | lost at {} | won at {} |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|",
        a.from_empties, a.games, a.from_empties, a.from_empties
    );
    for e in &a.engines {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1}% | {:.2} | {:.1} | {} | {} |",
            cell(&e.engine),
            e.games,
            e.all.moves,
            100.0 * e.all.best_share(),
            e.discs_per_game(),
            e.all.points_thrown,
            e.lost_before,
            e.won_before
        );
    }
    for note in a.notes() {
        let _ = writeln!(s, "\n{}.", cell(&note));
    }
}
