//! Text from a plugin is data: every string a worker sends (the plugin's name, version, author
//! and options, its error messages) is bounded and made printable when it arrives, before any
//! view, report or terminal sees it.
//!
//! A string is cut at [`MAX_TEXT`] bytes (on a character boundary, with a note of the length it
//! had), and every character that is not shown as itself ([`unseen`]) is written as its Rust
//! escape (`\u{1b}`, `\n`, `\u{202e}`): the control characters (C0, DEL, C1: escape
//! sequences, carriage returns, line breaks), so that nothing a plugin says can move the
//! cursor, clear the screen, retitle the terminal or start a line of its own in a log or a
//! journal; the format characters (bidirectional overrides and isolates, zero-width spaces and
//! joiners, the byte order mark, the soft hyphen, tags), so that nothing it says reorders or
//! hides the text around it in a terminal, a browser or an editor; and the line and paragraph
//! separators (U+2028, U+2029), which some viewers break lines at.

/// The most bytes kept of one string from a worker.
pub const MAX_TEXT: usize = 4096;

/// The format characters (general category Cf), as ranges of code points: Unicode 15.1's
/// DerivedGeneralCategory.txt, Cf (the same ranges in 16.0). The standard library has no
/// predicate for them.
const FORMAT: &[(char, char)] = &[
    ('\u{ad}', '\u{ad}'),       // soft hyphen
    ('\u{600}', '\u{605}'),     // Arabic number signs
    ('\u{61c}', '\u{61c}'),     // Arabic letter mark
    ('\u{6dd}', '\u{6dd}'),     // Arabic end of ayah
    ('\u{70f}', '\u{70f}'),     // Syriac abbreviation mark
    ('\u{890}', '\u{891}'),     // Arabic pound and piastre marks above
    ('\u{8e2}', '\u{8e2}'),     // Arabic disputed end of ayah
    ('\u{180e}', '\u{180e}'),   // Mongolian vowel separator
    ('\u{200b}', '\u{200f}'),   // zero width space and joiners, directional marks
    ('\u{202a}', '\u{202e}'),   // bidirectional embeddings and overrides
    ('\u{2060}', '\u{2064}'),   // word joiner, invisible operators
    ('\u{2066}', '\u{206f}'),   // bidirectional isolates, deprecated format characters
    ('\u{feff}', '\u{feff}'),   // zero width no-break space (byte order mark)
    ('\u{fff9}', '\u{fffb}'),   // interlinear annotation characters
    ('\u{110bd}', '\u{110bd}'), // Kaithi number sign
    ('\u{110cd}', '\u{110cd}'), // Kaithi number sign above
    ('\u{13430}', '\u{1343f}'), // Egyptian hieroglyph format controls
    ('\u{1bca0}', '\u{1bca3}'), // shorthand format controls
    ('\u{1d173}', '\u{1d17a}'), // musical symbol beams, ties, slurs, phrases
    ('\u{e0001}', '\u{e0001}'), // language tag
    ('\u{e0020}', '\u{e007f}'), // tag characters
];

/// Whether `c` is not shown as itself: a control character, a format character ([`FORMAT`]),
/// or the line or paragraph separator.
pub fn unseen(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}')
        || FORMAT
            .iter()
            .any(|&(first, last)| (first..=last).contains(&c))
}

/// `text`, cut at [`MAX_TEXT`] bytes and with its [`unseen`] characters escaped; and whether
/// it was cut.
pub fn clean(text: &str) -> (String, bool) {
    let mut end = text.len().min(MAX_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end);
    for c in text[..end].chars() {
        if unseen(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    let cut = end < text.len();
    if cut {
        out.push_str(&format!("… (cut from {} bytes)", text.len()));
    }
    (out, cut)
}

/// [`clean`] in place; says whether the string was cut.
pub fn clean_in_place(text: &mut String) -> bool {
    let (cleaned, cut) = clean(text);
    *text = cleaned;
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_long_text_is_cut() {
        let (text, cut) = clean("a\u{1b}]0;title\u{7}\r\nb\u{9b}2J é");
        assert_eq!(text, "a\\u{1b}]0;title\\u{7}\\r\\nb\\u{9b}2J é");
        assert!(!cut);
        let long = "é".repeat(MAX_TEXT);
        let (text, cut) = clean(&long);
        assert!(cut);
        assert!(text.len() < MAX_TEXT + 40, "{}", text.len());
        assert!(text.ends_with(&format!("(cut from {} bytes)", long.len())));
    }

    /// Format characters and the line and paragraph separators are escaped; other text that
    /// is not ASCII (accents, CJK) is kept as it is.
    #[test]
    fn format_characters_and_separators_are_escaped_and_other_text_kept() {
        let (text, _) = clean("a\u{202e}b\u{2028}c\u{200b}d\u{feff}e\u{e0041}f\u{2029} é 漢");
        assert_eq!(
            text,
            "a\\u{202e}b\\u{2028}c\\u{200b}d\\u{feff}e\\u{e0041}f\\u{2029} é 漢"
        );
        for c in [
            '\u{ad}',
            '\u{61c}',
            '\u{2066}',
            '\u{2069}',
            '\u{e0001}',
            '\u{e007f}',
        ] {
            assert!(unseen(c), "{:?}", c);
        }
        for c in [
            '\u{ac}',
            '\u{ae}',
            '\u{2065}',
            '\u{e0000}',
            '\u{e0080}',
            'x',
            'é',
            '漢',
        ] {
            assert!(!unseen(c), "{:?}", c);
        }
    }
}
