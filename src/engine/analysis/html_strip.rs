//! `html_strip`: Lucene's `HTMLStripCharFilter` reduced to its observable rules: tags and
//! comments are removed, block-level tags (and `<br>`) become a newline, `<script>`/`<style>`
//! lose their content, character entities are decoded, and tags named in `escaped_tags` are kept.

use std::collections::HashSet;

use super::char_filters::{CharFilter, OffsetCorrection};

/// Elements Lucene's filter replaces by a newline.
const BLOCK_ELEMENTS: [&str; 40] = [
    "address", "article", "aside", "blockquote", "br", "caption", "center", "dd", "dir", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "menu",
    "nav", "noscript", "ol", "p", "pre", "section", "table", "tbody", "td", "tfoot", "th", "tr", "ul",
];

/// `html_strip` with its `escaped_tags` (lowercased names).
#[derive(Debug, Default)]
pub struct HtmlStripCharFilter {
    escaped_tags: HashSet<String>,
}

impl HtmlStripCharFilter {
    /// A filter keeping the tags in `escaped_tags`.
    pub fn new(escaped_tags: impl IntoIterator<Item = String>) -> Self {
        HtmlStripCharFilter { escaped_tags: escaped_tags.into_iter().map(|t| t.to_ascii_lowercase()).collect() }
    }
}

fn entity(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match name {
        "amp" | "AMP" => '&',
        "lt" | "LT" => '<',
        "gt" | "GT" => '>',
        "quot" | "QUOT" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "hellip" => '…',
        "mdash" => '—',
        "ndash" => '–',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "laquo" => '«',
        "raquo" => '»',
        "euro" => '€',
        "pound" => '£',
        "yen" => '¥',
        "cent" => '¢',
        "sect" => '§',
        "deg" => '°',
        "middot" => '·',
        "bull" => '•',
        "times" => '×',
        "divide" => '÷',
        "eacute" => 'é',
        "egrave" => 'è',
        "agrave" => 'à',
        "aacute" => 'á',
        "uuml" => 'ü',
        "ouml" => 'ö',
        "auml" => 'ä',
        "szlig" => 'ß',
        "ccedil" => 'ç',
        "ntilde" => 'ñ',
        _ => return None,
    })
}

/// The tag name of `tag` (the text between `<` and `>`), lowercased, and whether it closes.
fn tag_name(tag: &str) -> (String, bool) {
    let closing = tag.starts_with('/');
    let name: String = tag
        .trim_start_matches('/')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == ':')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    (name, closing)
}

impl CharFilter for HtmlStripCharFilter {
    fn filter(&self, text: &str) -> (String, OffsetCorrection) {
        let mut out = String::with_capacity(text.len());
        let mut correction = OffsetCorrection::default();
        let bytes = text.as_bytes();
        let mut pos = 0;
        while pos < text.len() {
            let rest = &text[pos..];
            if rest.starts_with("<!--") {
                let len = rest.find("-->").map_or(rest.len(), |i| i + 3);
                correction.replaced(out.len(), len, 0);
                pos += len;
                continue;
            }
            if bytes[pos] == b'<' && rest.len() > 1 && (bytes[pos + 1].is_ascii_alphabetic() || matches!(bytes[pos + 1], b'/' | b'!' | b'?')) {
                if let Some(close) = rest.find('>') {
                    let inner = &rest[1..close];
                    let (name, closing) = tag_name(inner);
                    let mut len = close + 1;
                    if self.escaped_tags.contains(&name) {
                        out.push_str(&rest[..len]);
                        pos += len;
                        continue;
                    }
                    if !closing && (name == "script" || name == "style") {
                        let end_tag = format!("</{name}");
                        if let Some(end) = rest.to_ascii_lowercase().find(&end_tag) {
                            len = rest[end..].find('>').map_or(rest.len(), |i| end + i + 1);
                        }
                    }
                    let replacement = if BLOCK_ELEMENTS.contains(&name.as_str()) { "\n" } else { "" };
                    correction.replaced(out.len(), len, replacement.len());
                    out.push_str(replacement);
                    pos += len;
                    continue;
                }
            }
            if bytes[pos] == b'&' {
                if let Some(semi) = rest[1..].find(';').map(|i| i + 1).filter(|&i| i <= 12) {
                    if let Some(decoded) = entity(&rest[1..semi]) {
                        let len = semi + 1;
                        correction.replaced(out.len(), len, decoded.len_utf8());
                        out.push(decoded);
                        pos += len;
                        continue;
                    }
                }
            }
            let len = rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&rest[..len]);
            pos += len;
        }
        (out, correction)
    }
}
