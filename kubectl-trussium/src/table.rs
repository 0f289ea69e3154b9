//! kubectl-style tables: no borders, three spaces between columns, header in
//! capitals, no trailing spaces.

use comfy_table::presets::NOTHING;
use comfy_table::{CellAlignment, ContentArrangement, Table};

use crate::output::Palette;

/// A borderless table with the given header.
pub fn new(header: &[&str], palette: Palette) -> Table {
    let mut table = Table::new();
    table
        .load_preset(NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().map(|h| palette.bold(h)).collect::<Vec<_>>());
    for column in table.column_iter_mut() {
        column.set_padding((0, 3));
        column.set_cell_alignment(CellAlignment::Left);
    }
    // Colours are ours (already in the cell text); comfy-table only measures.
    table.force_no_tty();
    table
}

/// The table as text, each line indented by `indent` spaces, ending with a newline.
pub fn render(table: &Table, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(&pad);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borderless_and_aligned() {
        let mut t = new(&["NAME", "READY"], Palette::PLAIN);
        t.add_row(vec!["a-long-name", "1"]);
        t.add_row(vec!["b", "10"]);
        assert_eq!(
            render(&t, 0),
            "NAME          READY\na-long-name   1\nb             10\n"
        );
    }

    #[test]
    fn coloured_cells_keep_columns_aligned() {
        let p = Palette::COLORED;
        let mut t = new(&["A", "B"], p);
        t.add_row(vec![p.good("ok"), "x".to_string()]);
        t.add_row(vec!["longer".to_string(), "y".to_string()]);
        let text = render(&t, 2);
        let plain: String = strip_ansi(&text);
        assert_eq!(plain, "  A        B\n  ok       x\n  longer   y\n");
    }

    fn strip_ansi(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }
}
