//! Text from a plugin is data: every string a worker sends (the plugin's name, version, author
//! and options, its error messages) is bounded and made printable when it arrives, before any
//! view, report or terminal sees it.
//!
//! A string is cut at [`MAX_TEXT`] bytes (on a character boundary, with a note of the length it
//! had), and every control character (C0, DEL, C1: escape sequences, carriage returns, line
//! breaks) is written as its Rust escape (`\u{1b}`, `\n`), so that nothing a plugin says can
//! move the cursor, clear the screen, retitle the terminal or start a line of its own in a log
//! or a journal.

/// The most bytes kept of one string from a worker.
pub const MAX_TEXT: usize = 4096;

/// `text`, cut at [`MAX_TEXT`] bytes and with its control characters escaped; and whether it
/// was cut.
pub fn clean(text: &str) -> (String, bool) {
    let mut end = text.len().min(MAX_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end);
    for c in text[..end].chars() {
        if c.is_control() {
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
}
