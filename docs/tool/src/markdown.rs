//! The parts of a Markdown page the checks read, as mdBook parses them
//! (pulldown-cmark, GitHub's tables): code, prose, tables, headings, links.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// A piece of a page and the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    pub line: usize,
    pub text: String,
}

/// A table: its header cells and its rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<(usize, Vec<String>)>,
}

/// What a page holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// Inline code spans, and each line of a code block (but Mermaid's).
    pub code: Vec<Snippet>,
    /// Inline code spans only.
    pub code_spans: Vec<Snippet>,
    /// Each paragraph, list item, table cell or heading as text (code spans
    /// included), so that a pattern is found wherever it is written.
    pub text: Vec<Snippet>,
    /// Headings whose whole text is one code span (`### \`SecretNotFound\``).
    pub code_headings: Vec<Snippet>,
    pub tables: Vec<Table>,
    /// Link destinations.
    pub links: Vec<Snippet>,
    /// Heading texts, for anchors.
    pub headings: Vec<Snippet>,
}

/// Parses a page.
pub fn parse(markdown: &str) -> Page {
    let line_of = |offset: usize| markdown[..offset.min(markdown.len())].matches('\n').count() + 1;
    let mut page = Page::default();
    let mut text = String::new();
    let mut text_line = 0;
    let mut code_block: Option<(usize, bool, String)> = None; // (line, mermaid, text)
    let mut heading: Option<(usize, String, usize)> = None; // (line, text, code spans)
    let mut table: Option<Table> = None;
    let mut row: Vec<String> = Vec::new();
    let mut cell = String::new();
    let mut in_cell = false;

    let flush = |page: &mut Page, text: &mut String, line: usize| {
        if !text.trim().is_empty() {
            page.text.push(Snippet {
                line,
                text: std::mem::take(text),
            });
        }
        text.clear();
    };

    let options = Options::ENABLE_TABLES | Options::ENABLE_HEADING_ATTRIBUTES;
    for (event, range) in Parser::new_ext(markdown, options).into_offset_iter() {
        let line = line_of(range.start);
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let mermaid =
                    matches!(&kind, CodeBlockKind::Fenced(lang) if lang.as_ref() == "mermaid");
                // The fence's own line comes first.
                code_block = Some((line + 1, mermaid, String::new()));
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((first, mermaid, body)) = code_block.take()
                    && !mermaid
                {
                    for (i, l) in body.lines().enumerate() {
                        page.code.push(Snippet {
                            line: first + i,
                            text: l.to_string(),
                        });
                    }
                }
            }
            Event::Text(t) if code_block.is_some() => {
                if let Some((_, _, body)) = code_block.as_mut() {
                    body.push_str(&t);
                }
            }
            Event::Code(code) => {
                let snippet = Snippet {
                    line,
                    text: code.to_string(),
                };
                page.code.push(snippet.clone());
                page.code_spans.push(snippet);
                let quoted = format!("`{code}`");
                if text.is_empty() {
                    text_line = line;
                }
                text.push_str(&quoted);
                if in_cell {
                    cell.push_str(&quoted);
                }
                if let Some((_, h, spans)) = heading.as_mut() {
                    h.push_str(&quoted);
                    *spans += 1;
                }
            }
            Event::Text(t) => {
                if text.is_empty() {
                    text_line = line;
                }
                text.push_str(&t);
                if in_cell {
                    cell.push_str(&t);
                }
                if let Some((_, h, _)) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            Event::Html(h) | Event::InlineHtml(h) if h.trim() == "<br>" => {
                text.push(' ');
                if in_cell {
                    cell.push(' ');
                }
            }
            Event::Start(Tag::Heading { .. }) => {
                flush(&mut page, &mut text, text_line);
                heading = Some((line, String::new(), 0));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((line, h, spans)) = heading.take() {
                    let trimmed = h.trim().to_string();
                    if spans == 1 && trimmed.starts_with('`') && trimmed.ends_with('`') {
                        page.code_headings.push(Snippet {
                            line,
                            text: trimmed.trim_matches('`').to_string(),
                        });
                    }
                    page.headings.push(Snippet {
                        line,
                        text: trimmed,
                    });
                }
                flush(&mut page, &mut text, text_line);
            }
            Event::End(TagEnd::Paragraph | TagEnd::Item) => flush(&mut page, &mut text, text_line),
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                page.links.push(Snippet {
                    line,
                    text: dest_url.to_string(),
                });
            }
            Event::Start(Tag::Table(_)) => {
                flush(&mut page, &mut text, text_line);
                table = Some(Table::default());
            }
            Event::End(TagEnd::Table) => {
                if let Some(t) = table.take() {
                    page.tables.push(t);
                }
            }
            Event::Start(Tag::TableHead | Tag::TableRow) => row.clear(),
            Event::End(TagEnd::TableHead) => {
                if let Some(t) = table.as_mut() {
                    t.header = std::mem::take(&mut row);
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let Some(t) = table.as_mut() {
                    t.rows.push((line, std::mem::take(&mut row)));
                }
            }
            Event::Start(Tag::TableCell) => {
                in_cell = true;
                cell.clear();
                text.clear();
                text_line = line;
            }
            Event::End(TagEnd::TableCell) => {
                in_cell = false;
                row.push(cell.trim().to_string());
                flush(&mut page, &mut text, text_line);
            }
            _ => {}
        }
    }
    flush(&mut page, &mut text, text_line);
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# Title\n\nSome `code` and [a link](other.md#part).\n\n### `SecretNotFound`\n\n| Reason | Type |\n|---|---|\n| `RuntimeReady` | Normal |\n\n```sh\nkubectl trussium status\n```\n\n```mermaid\nflowchart LR\n```\n";

    #[test]
    fn finds_code_text_tables_headings_and_links() {
        let page = parse(PAGE);
        let code: Vec<(usize, &str)> = page
            .code
            .iter()
            .map(|s| (s.line, s.text.as_str()))
            .collect();
        assert_eq!(
            code,
            [
                (3, "code"),
                (5, "SecretNotFound"),
                (9, "RuntimeReady"),
                (12, "kubectl trussium status")
            ]
        );
        assert_eq!(page.code_headings[0].text, "SecretNotFound");
        assert_eq!(page.links[0].text, "other.md#part");
        assert_eq!(page.tables[0].header, ["Reason", "Type"]);
        assert_eq!(page.tables[0].rows[0].1, ["`RuntimeReady`", "Normal"]);
        assert!(
            page.text
                .iter()
                .any(|s| s.text == "Some `code` and a link.")
        );
        assert_eq!(page.headings[0].text, "Title");
    }
}
